"""Custom promise types: ``promise agent NAME { interpreter => ...; path => ...; }``.

A promise type the policy declares with a ``promise`` block is carried out by an
external *promise module*, a long-running program the agent talks to over
CFEngine 3.21's promise module protocol on its stdin/stdout:

* :mod:`.protocol` -- the messages: header exchange, requests (line-based and
  JSON-based), responses, log levels (pure functions, no I/O);
* :mod:`.process` -- one module process: start, header, request/response with a
  timeout and size limits, stderr kept for error messages, terminate;
* :mod:`.registry` -- the policy's custom types and the module processes of the
  run (one per module path, terminated when the run ends);
* :mod:`.handler` -- one promise: the attributes sent, validate_promise then
  evaluate_promise, results, log lines, result classes, action_policy.

The engine finds these handlers through the fallback of
:func:`cfpromise.promises.api.handler_for`; nothing here is imported by a run
whose policy has no custom promise types.
"""
