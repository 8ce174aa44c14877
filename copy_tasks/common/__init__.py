"""What every layer of copy-tasks shares and that is about none of them: its own files
(`files`: atomic writes, the cache folder), its version (`version`) and a hook run after a
module's import (`import_hooks`)."""
