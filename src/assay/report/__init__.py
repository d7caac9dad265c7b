"""Seeing results: one offline HTML file per run or comparison, and two runs compared."""
