"""What the agent must leave behind: /app/hello.txt saying hello."""

from pathlib import Path

HELLO = Path("/app/hello.txt")


def test_the_file_exists():
    assert HELLO.is_file()


def test_the_file_says_hello_world():
    assert HELLO.read_text().strip() == "Hello, world!"
