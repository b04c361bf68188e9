//go:build !unix

package live

import (
	"errors"
	"net"
)

// socketWriter would write to a socket without waiting; without the
// Unix write(2) and its EAGAIN there is none here (rawwrite_unix.go).
type socketWriter struct{}

// newSocketWriter returns nil: every write of a stream goes through its
// own goroutine, as for a connection that is no socket. That costs a
// goroutine wake-up a change and a stream, and nothing in what a client
// gets.
func newSocketWriter(net.Conn) *socketWriter { return nil }

// tryWrite is never called: a stream without a socketWriter stays busy,
// so the hub hands its changes to the stream's goroutine.
func (*socketWriter) tryWrite([]byte) (int, error) { return 0, errors.ErrUnsupported }
