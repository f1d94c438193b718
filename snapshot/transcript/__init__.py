"""Transcripts: the neutral conversation model, importers and exporters, the store and session tree."""
