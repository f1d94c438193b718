"""The compaction ladder: free rungs first (elide, drop images, snapshot), a summary last."""
