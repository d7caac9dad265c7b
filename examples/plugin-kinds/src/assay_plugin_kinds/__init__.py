"""An example plugin for assay: the service kind `sms` (`sms.py`) and the check kind `sms-sent`
(`checks.py`), declared as entry points in this package's pyproject.toml."""
