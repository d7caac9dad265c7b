"""Running a container-format task without Docker: the Dockerfile subset and the sandbox."""
