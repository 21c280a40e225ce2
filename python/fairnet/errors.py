"""The error users see: one line naming what is wrong and where."""


class InputError(ValueError):
    """Bad input (a file, a field, a flow or link). The CLI prints it as one line, exit code 2."""
