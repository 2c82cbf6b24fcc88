"""The one exception type the CLI turns into a one-line message and exit code 2."""


class ProceedingsError(Exception):
    """A problem the user can fix (bad input, missing file or extra); the message says how."""
