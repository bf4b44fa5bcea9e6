"""Exceptions: one class per cake_status, all subclasses of CakeError (which carries .status)."""


class CakeError(RuntimeError):
    status = 1  # CAKE_ERROR_INVALID_ARGUMENT

    def __init__(self, message, status=None):
        super().__init__(message)
        if status is not None:
            self.status = status


class CakeIOError(CakeError, OSError):
    status = 2


class CakeManifestError(CakeError):
    status = 3


class CakeNotFoundError(CakeError, KeyError):
    status = 4

    def __str__(self):  # KeyError would quote the message
        return self.args[0] if self.args else ""


class CakeArgumentError(CakeError, ValueError):
    status = 5


class CakeRequirementError(CakeArgumentError):
    status = 6


class CakeLaunchConfigError(CakeError):
    status = 7


class CakeExpressionError(CakeError, ArithmeticError):
    status = 8


class CakeDriverUnavailable(CakeError):
    status = 9


class CakeCudaError(CakeError):
    status = 10


_BY_STATUS = {cls.status: cls for cls in (CakeIOError, CakeManifestError, CakeNotFoundError, CakeArgumentError,
                                          CakeRequirementError, CakeLaunchConfigError, CakeExpressionError,
                                          CakeDriverUnavailable, CakeCudaError)}


def error_for(status, message):
    """The exception for a failed call's status and message."""
    return _BY_STATUS.get(status, CakeError)(message, status)
