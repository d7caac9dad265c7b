"""Build a world's tasks with a model: drafts in, only the drafts every proof passes published."""
