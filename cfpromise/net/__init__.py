"""cf-lite's network layer: CFEngine 3.21's protocol (versions 2 "tls" and 3
"cookie"), host keys in cf-key's formats, the client used by remote copy_from,
the remote functions and the tools; the server (cfpromise/server) is built on
the same pieces (protocol, keys, tls)."""
