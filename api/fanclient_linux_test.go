//go:build linux

package api

import (
	"bytes"
	"fmt"
	"net"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// The fan-out benchmarks' clients: many event streams read off their
// sockets by a few OS threads with epoll, so what the clients cost is a
// read per frame and a look at it, not a goroutine woken per stream and
// the layers of net/http. Each frame is still read whole off a real TCP
// socket on 127.0.0.1 and checked: its id is a version, its event is the
// kind asked for, its data one JSON line.

// fanReaders reads every stream of a benchmark.
type fanReaders struct {
	readers []*fanReader
	// want is how many streams must have a version before wait returns.
	want int
	// got counts, per version, the streams that have read it whole.
	got  []atomic.Int32
	done chan int
	// phase asks the readers to take their thread's CPU time (mark).
	phase atomic.Int32
	acks  sync.WaitGroup
	stop  atomic.Bool
	wg    sync.WaitGroup
	// bad is the first malformed thing read, if any.
	badMu sync.Mutex
	bad   error
}

// fanReader is one thread's epoll set of streams.
type fanReader struct {
	rs    *fanReaders
	epfd  int
	conns map[int32]*fanConn
	// at holds every arrival: version and when its frame was read whole.
	at []arrival
	// cpu is the thread's CPU time at each mark.
	cpu []time.Duration
	// event is the event name frames must carry.
	event string
}

// fanConn is one stream: a socket and what it has read of a frame.
type fanConn struct {
	fd   int
	buf  []byte
	head bool // the HTTP response head is read
	// scan is where the search for the end of a block resumes.
	scan int
}

// newFanReaders starts n reader threads for streams of event name, up to
// maxVersion.
func newFanReaders(n, want, maxVersion int, event string) (*fanReaders, error) {
	rs := &fanReaders{want: want, got: make([]atomic.Int32, maxVersion+1), done: make(chan int, maxVersion+1)}
	for range n {
		epfd, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
		if err != nil {
			return nil, err
		}
		rs.readers = append(rs.readers, &fanReader{rs: rs, epfd: epfd, conns: map[int32]*fanConn{}, event: event})
	}
	return rs, nil
}

// dial opens a socket to addr, sends request on it, and hands it to the
// i-th reader's epoll set.
func (rs *fanReaders) dial(i int, addr *net.TCPAddr, request string) error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	var sa syscall.SockaddrInet4
	copy(sa.Addr[:], addr.IP.To4())
	sa.Port = addr.Port
	if err := syscall.Connect(fd, &sa); err != nil {
		syscall.Close(fd)
		return err
	}
	for b := []byte(request); len(b) > 0; {
		n, err := syscall.Write(fd, b)
		if err != nil {
			syscall.Close(fd)
			return err
		}
		b = b[n:]
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return err
	}
	r := rs.readers[i%len(rs.readers)]
	r.conns[int32(fd)] = &fanConn{fd: fd, buf: make([]byte, 0, 32<<10)}
	return syscall.EpollCtl(r.epfd, syscall.EPOLL_CTL_ADD, fd, &syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)})
}

// start runs the readers, each on a thread of its own.
func (rs *fanReaders) start() {
	for _, r := range rs.readers {
		rs.wg.Add(1)
		go r.run()
	}
}

// close stops the readers and closes their sockets.
func (rs *fanReaders) close() {
	rs.stop.Store(true)
	rs.wg.Wait()
	for _, r := range rs.readers {
		for _, c := range r.conns {
			syscall.Close(c.fd)
		}
		syscall.Close(r.epfd)
	}
}

// mark has every reader note its thread's CPU time.
func (rs *fanReaders) mark() {
	rs.acks.Add(len(rs.readers))
	rs.phase.Add(1)
	rs.acks.Wait()
}

// cpu is the readers' CPU time between the last two marks.
func (rs *fanReaders) cpu() time.Duration {
	var d time.Duration
	for _, r := range rs.readers {
		d += r.cpu[len(r.cpu)-1] - r.cpu[len(r.cpu)-2]
	}
	return d
}

// arrivals is every frame read whole, in no order.
func (rs *fanReaders) arrivals() []arrival {
	var all []arrival
	for _, r := range rs.readers {
		all = append(all, r.at...)
	}
	return all
}

// wait waits until every stream has version v whole.
func (rs *fanReaders) wait(v int, timeout time.Duration) error {
	deadline := time.After(timeout)
	for {
		select {
		case got := <-rs.done:
			if got == v {
				return rs.err()
			}
		case <-deadline:
			if err := rs.err(); err != nil {
				return err
			}
			return fmt.Errorf("version %d reached %d of %d streams", v, rs.got[v].Load(), rs.want)
		}
	}
}

func (rs *fanReaders) err() error {
	rs.badMu.Lock()
	defer rs.badMu.Unlock()
	return rs.bad
}

func (rs *fanReaders) fail(err error) {
	rs.badMu.Lock()
	defer rs.badMu.Unlock()
	if rs.bad == nil {
		rs.bad = err
	}
}

func threadCPU() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(1, &ru) // RUSAGE_THREAD
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (r *fanReader) run() {
	defer r.rs.wg.Done()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	events := make([]syscall.EpollEvent, 256)
	seen := int32(0)
	for !r.rs.stop.Load() {
		if p := r.rs.phase.Load(); p != seen {
			seen = p
			r.cpu = append(r.cpu, threadCPU())
			r.rs.acks.Done()
		}
		n, err := syscall.EpollWait(r.epfd, events, 20)
		if err != nil && err != syscall.EINTR {
			r.rs.fail(err)
			return
		}
		for _, ev := range events[:max(n, 0)] {
			if c := r.conns[ev.Fd]; c != nil {
				r.read(c)
			}
		}
	}
}

// read takes what the socket holds and every block it completes.
func (r *fanReader) read(c *fanConn) {
	for {
		if cap(c.buf)-len(c.buf) < 16<<10 {
			c.buf = append(make([]byte, 0, 2*cap(c.buf)), c.buf...)
		}
		n, err := syscall.Read(c.fd, c.buf[len(c.buf):cap(c.buf)])
		if n <= 0 {
			if err != syscall.EAGAIN && err != syscall.EINTR {
				if !r.rs.stop.Load() {
					r.rs.fail(fmt.Errorf("a stream ended: %v", err))
				}
				syscall.EpollCtl(r.epfd, syscall.EPOLL_CTL_DEL, c.fd, nil)
			}
			return
		}
		c.buf = c.buf[:len(c.buf)+n]
		r.blocks(c, time.Since(fanEpoch))
	}
}

var (
	crlf2   = []byte("\r\n\r\n")
	lf2     = []byte("\n\n")
	idLine  = []byte("id: ")
	evLine  = []byte("event: ")
	dataPfx = []byte("data: {")
)

// blocks checks and takes the complete blocks in c's buffer.
func (r *fanReader) blocks(c *fanConn, now time.Duration) {
	b := c.buf
	if !c.head {
		i := bytes.Index(b, crlf2)
		if i < 0 {
			return
		}
		if !bytes.HasPrefix(b, []byte("HTTP/1.1 200 ")) {
			r.rs.fail(fmt.Errorf("the stream answered %q", b[:min(len(b), 40)]))
		}
		c.head, b = true, b[i+4:]
	}
	for {
		i := bytes.Index(b[c.scan:], lf2)
		if i < 0 {
			c.scan = max(len(b)-1, 0)
			break
		}
		block := b[:c.scan+i+1]
		b, c.scan = b[c.scan+i+2:], 0
		if !bytes.HasPrefix(block, idLine) {
			continue // retry, heartbeats
		}
		// id: N.hash \n event: E \n data: {...} \n
		nl := bytes.IndexByte(block, '\n')
		version, _, _ := bytes.Cut(block[len(idLine):nl], []byte("."))
		v, err := strconv.Atoi(string(version))
		rest := block[nl+1:]
		nl2 := bytes.IndexByte(rest, '\n')
		name := ""
		if nl2 > len(evLine) && bytes.HasPrefix(rest, evLine) {
			name = string(rest[len(evLine):nl2])
		}
		ok := err == nil && (name == "table" || name == r.event)
		data := rest[nl2+1:]
		ok = ok && bytes.HasPrefix(data, dataPfx) && len(data) > len(dataPfx)+1 && data[len(data)-2] == '}' && data[len(data)-1] == '\n' &&
			bytes.IndexByte(data[:len(data)-1], '\n') < 0
		if !ok {
			r.rs.fail(fmt.Errorf("a malformed event: %.80q", block))
			continue
		}
		r.at = append(r.at, arrival{version: int32(v), at: now, bytes: int32(len(block) + 1)})
		if v < len(r.rs.got) && int(r.rs.got[v].Add(1)) == r.rs.want {
			r.rs.done <- v
		}
	}
	// Keep what is left of a block at the start of the buffer.
	c.buf = append(c.buf[:0], b...)
}
