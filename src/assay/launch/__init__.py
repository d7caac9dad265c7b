"""Benchmark runs started in this process, fresh or resumed, as `assay run` and `assay.evaluate`
start them: the configuration checked, withdrawn tasks left out, the run recorded with it."""
