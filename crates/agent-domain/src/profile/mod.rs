//! Agent profiles: on-disk schema, migrations, the built-in default-writer, validation and resolution.
