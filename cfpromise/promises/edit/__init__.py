"""edit_line promise types: the in-memory buffer and one module per promise type.

The files promise loads a file into an :class:`~cfpromise.promises.edit.buffer.EditBuffer`
and runs the edit_line bundle against it through ``AgentServices.run_edit_bundle``;
the handlers here (delete_lines, field_edits, insert_lines, replace_patterns)
find the buffer with ``run.agent.edit_buffer()`` and edit it in memory.
"""
