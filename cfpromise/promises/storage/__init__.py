"""The ``storage`` promise type: ``mount`` bodies (mount tables, /etc/fstab) and ``volume``
bodies (free space and sanity of a file system).  See :mod:`.handler`."""
