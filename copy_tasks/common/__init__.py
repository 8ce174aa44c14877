"""What every layer of copy-tasks shares and that is about none of them: its own files
(`files`: atomic writes, the cache folder) and its version (`version`)."""
