"""The shared file tree (`kind = "files"`), also served over SFTP."""

from assay.world.services.healthcare.files.service import FileTree

__all__ = ["FileTree"]
