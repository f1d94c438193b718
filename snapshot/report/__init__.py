"""The main job: compaction strategies on real transcripts, with tokens, dollars and readability."""
