//go:build unix

package live

import (
	"net"
	"syscall"
)

// socketWriter writes to a socket as far as it takes without waiting, so
// the hub can write a change to a thousand streams from one goroutine: a
// net.Conn write would park it on the first full socket.
type socketWriter struct {
	raw syscall.RawConn
	// buf, n and err are the write in progress; fn is write, bound once
	// so a write allocates no closure.
	buf []byte
	n   int
	err error
	fn  func(fd uintptr) bool
}

// newSocketWriter returns the writer of conn, or nil when conn is no
// socket (the stream's goroutine then writes everything).
func newSocketWriter(conn net.Conn) *socketWriter {
	sc, ok := conn.(syscall.Conn)
	if !ok {
		return nil
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	w := &socketWriter{raw: raw}
	w.fn = w.write
	return w
}

// tryWrite writes b to the socket as far as it takes it without waiting.
// Its caller holds the stream's lock, so writes do not overlap.
func (w *socketWriter) tryWrite(b []byte) (int, error) {
	w.buf, w.n, w.err = b, 0, nil
	err := w.raw.Write(w.fn)
	n, werr := w.n, w.err
	w.buf, w.err = nil, nil
	if err == nil {
		err = werr
	}
	return n, err
}

// write is tryWrite's one pass over the socket: done when it took
// everything, was full (EAGAIN) or failed. Returning true even when full
// keeps the runtime from parking the caller until the socket drains.
func (w *socketWriter) write(fd uintptr) bool {
	for w.n < len(w.buf) {
		n, err := syscall.Write(int(fd), w.buf[w.n:])
		if n > 0 {
			w.n += n
		}
		switch {
		case err == syscall.EINTR:
		case err == syscall.EAGAIN:
			return true
		case err != nil:
			w.err = err
			return true
		case n <= 0:
			return true
		}
	}
	return true
}
