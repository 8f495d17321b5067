//! The canonical model IR: requests, messages, content parts, responses and opaque provider state.
