"""openaclnn.Error: what the C API (or the binding, before reaching it) rejected."""


class Error(RuntimeError):
    """A call the library rejected. `status` is the aclnn status code (e.g. 161002 for an invalid
    parameter); str() is the library's message (aclGetRecentErrMsg)."""

    def __init__(self, status, message):
        super().__init__(status, message)
        self.status = status
        self.message = message

    def __str__(self):
        return self.message
