package kproxy

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Shopify/toxiproxy/v2/stream"
)

// Entry is one line of the request log: a request as it reached the
// proxy from the client, the response matched to it by correlation id on
// its connection as it reached the proxy from the broker, or word that a
// connection's stream was lost to the log. A request held by a hold
// toxic reaches the broker later than Time by the hold: the tap sees
// every request before any fault's toxic does.
type Entry struct {
	Time        time.Time `json:"time"`
	Kind        string    `json:"kind"`             // KindRequest, KindResponse, KindLost
	Conn        int64     `json:"conn"`             // the connection, numbered from 1 on its Set
	Client      string    `json:"client,omitempty"` // the client's address
	Broker      string    `json:"broker"`           // the proxy's name
	API         string    `json:"api,omitempty"`    // the API key's name (kmsg)
	Key         int16     `json:"key"`
	Version     int16     `json:"version"`
	Correlation int32     `json:"correlation"`
	ClientID    string    `json:"client_id,omitempty"`
	// Duration is a response's time after its request (microseconds).
	DurationUs int64 `json:"duration_us,omitempty"`

	// Decoded for the transaction APIs (request or response).
	Txn          string        `json:"txn,omitempty"` // transactional id
	PID          *int64        `json:"pid,omitempty"`
	Epoch        *int16        `json:"epoch,omitempty"`
	Commit       *bool         `json:"commit,omitempty"` // EndTxn: commit, not abort
	Group        string        `json:"group,omitempty"`
	Acks         *int16        `json:"acks,omitempty"`     // Produce
	KeyType      *int8         `json:"key_type,omitempty"` // FindCoordinator: 0 group, 1 transaction
	Keys         []string      `json:"keys,omitempty"`     // FindCoordinator's keys
	Coordinators []Coordinator `json:"coordinators,omitempty"`
	Partitions   []Partition   `json:"partitions,omitempty"`
	Error        string        `json:"error,omitempty"` // a response's top-level error
	// Undecoded says why a frame's body could not be decoded; the header
	// fields are still right.
	Undecoded string `json:"undecoded,omitempty"`
}

// Kinds of Entry.
const (
	KindRequest  = "request"
	KindResponse = "response"
	KindLost     = "lost" // the log fell behind and dropped this stream (Broker, Conn; Key 0 upstream, 1 downstream)
)

// Partition is one partition of a request or response. For Produce it is
// one record batch: the producer id, epoch, base sequence, record count
// and whether it is transactional; in the response, the base offset.
type Partition struct {
	Topic         string `json:"topic"`
	Partition     int32  `json:"partition"`
	Txn           string `json:"txn,omitempty"` // AddPartitionsToTxn v4+: the transaction it is for
	PID           *int64 `json:"pid,omitempty"`
	Epoch         *int16 `json:"epoch,omitempty"`
	Seq           *int32 `json:"seq,omitempty"`
	Records       *int32 `json:"records,omitempty"`
	Transactional *bool  `json:"transactional,omitempty"`
	Offset        *int64 `json:"offset,omitempty"` // Produce response: base offset; TxnOffsetCommit: the offset
	Error         string `json:"error,omitempty"`
}

// Coordinator is one key's coordinator in a FindCoordinator response.
type Coordinator struct {
	Key   string `json:"key"`
	Node  int32  `json:"node"`
	Error string `json:"error,omitempty"`
}

// logQueue bounds the chunks waiting for the log's decoder: when it is
// full a stream's chunk is dropped (and the stream is lost to the log)
// rather than the connection slowed. Toxiproxy reads at most 32 KiB a
// chunk, so it holds at most 128 MiB.
const logQueue = 4096

// reqLog decodes the chunks the taps hand it, on a goroutine of its own,
// and writes entries as JSON lines.
type reqLog struct {
	in     chan chunk
	stop   chan struct{}
	done   chan struct{}
	closed atomic.Bool

	path string
	file *os.File
	gz   *gzip.Writer // nil for a plain file
	bw   *bufio.Writer
	enc  *json.Encoder
	err  error

	once sync.Once
}

// LogRequests writes the requests and responses of every connection that
// begins from now on to the file at path (gzip-compressed when path ends
// in .gz), until the returned close is called; close flushes the file and
// is idempotent. One log at a time: a second while one is open is an
// error. Decoding is off the connections' path: a connection is never
// slowed by the log; if the log falls behind, a stream's chunks are dropped
// and the log says so (KindLost).
func (s *Set) LogRequests(path string) (func() error, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, fmt.Errorf("kproxy: request log: %w", err)
	}
	l := &reqLog{in: make(chan chunk, logQueue), stop: make(chan struct{}), done: make(chan struct{}), file: f, path: path}
	var w io.Writer = f
	if strings.HasSuffix(path, ".gz") {
		l.gz = gzip.NewWriter(f)
		w = l.gz
	}
	l.bw = bufio.NewWriterSize(w, 64<<10)
	l.enc = json.NewEncoder(l.bw)
	if !s.log.CompareAndSwap(nil, l) {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("kproxy: request log %s: a request log is already open", path)
	}
	go l.run()
	return func() error {
		s.log.CompareAndSwap(l, nil)
		return l.shut()
	}, nil
}

// tee offers c to the log without ever waiting.
func (l *reqLog) tee(st *tapState, c *stream.StreamChunk) {
	if l.closed.Load() {
		return
	}
	if st.lost {
		if !st.told {
			select {
			case l.in <- chunk{c: st.c, up: st.up, lost: true}:
				st.told = true
			default:
			}
		}
		return
	}
	select {
	case l.in <- chunk{c: st.c, up: st.up, data: c.Data, at: c.Timestamp}:
	default:
		st.lost = true
	}
}

// run decodes until close, then what is queued, flushing at least once a
// second (through gzip too: a harness killed mid-run leaves a log that
// reads up to its last second).
func (l *reqLog) run() {
	defer close(l.done)
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	for {
		select {
		case ch := <-l.in:
			l.handle(ch)
		case <-tick.C:
			l.flush()
		case <-l.stop:
			for {
				select {
				case ch := <-l.in:
					l.handle(ch)
				default:
					return
				}
			}
		}
	}
}

// shut stops the decoder once it has decoded what is queued, and
// flushes and closes the file; it is idempotent.
func (l *reqLog) shut() error {
	l.once.Do(func() {
		l.closed.Store(true)
		close(l.stop)
		<-l.done
		l.keep(l.bw.Flush())
		if l.gz != nil {
			l.keep(l.gz.Close())
		}
		l.keep(l.file.Close())
		if l.err != nil {
			l.err = fmt.Errorf("kproxy: request log %s: %w", l.path, l.err)
		}
	})
	return l.err
}

func (l *reqLog) flush() {
	l.keep(l.bw.Flush())
	if l.gz != nil {
		l.keep(l.gz.Flush())
	}
}

// keep keeps the first write error.
func (l *reqLog) keep(err error) {
	if l.err == nil && err != nil {
		l.err = err
	}
}

func (l *reqLog) write(e *Entry) {
	if l.err == nil {
		l.keep(l.enc.Encode(e))
	}
}
