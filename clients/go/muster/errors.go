package muster

import (
	"errors"
	"fmt"
)

// Error codes; stable, so callers can branch on them.
const (
	CodeInvalidName     = "INVALID_NAME"
	CodePathEscapesRoot = "PATH_ESCAPES_ROOT"
	CodeLockTimeout     = "LOCK_TIMEOUT"
	CodeLockLost        = "LOCK_LOST"
	CodeCorruptFile     = "CORRUPT_FILE"
	CodeInvalidMessage  = "INVALID_MESSAGE"
	CodeNotFound        = "NOT_FOUND"
	CodeIOError         = "IO_ERROR"
)

// Error is every error this package returns: a stable Code, a message saying what failed
// on which file and what to do next, and Details naming the file.
type Error struct {
	Code    string
	Message string
	Details map[string]any
	Cause   error
}

func (e *Error) Error() string { return fmt.Sprintf("[%s] %s", e.Code, e.Message) }

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Cause }

// HasCode reports whether err is (or wraps) an *Error with this code.
func HasCode(err error, code string) bool {
	var target *Error
	return errors.As(err, &target) && target.Code == code
}

func newError(code, message string, details map[string]any, cause error) *Error {
	return &Error{Code: code, Message: message, Details: details, Cause: cause}
}
