//go:build !unix

package live

import (
	"errors"
	"net"
)

// Without the Unix write(2) and its EAGAIN the hub cannot write to a
// socket without waiting (rawwrite_unix.go).

// socketFD returns -1: every write of a stream goes through its own
// goroutine, as for a connection that is no socket. That costs a
// goroutine wake-up a change and a stream, and nothing in what a client
// gets.
func socketFD(net.Conn) int { return -1 }

// tryWrite is never called: a stream without a socket stays busy, so the
// hub hands its changes to the stream's goroutine.
func tryWrite(int, []byte) (int, error) { return 0, errors.ErrUnsupported }
