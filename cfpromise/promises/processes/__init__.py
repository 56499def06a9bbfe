"""processes promises: the process table, ``process_select`` and the promise handler."""
