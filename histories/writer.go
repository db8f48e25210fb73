package histories

import (
	"bufio"
	"io"
	"os"
	"sync"
)

// Writer appends ops to a JSONL history, one whole line per op. It is safe
// for concurrent use.
//
// Durability: each Append puts one complete line into the buffer, flushing
// first when the line does not fit, so the file only ever ends mid-line if
// a single line is larger than the buffer or the process dies inside a
// write. Flush hands buffered lines to the OS (they then survive a crash of
// the harness); Sync also fsyncs them (they then survive a crash of the
// machine). Readers accept a cut-off last line with a warning.
type Writer struct {
	mu   sync.Mutex
	bw   *bufio.Writer
	f    *os.File // nil unless created by Create
	c    io.Closer
	line []byte // scratch for encoding, reused under mu
	err  error  // first write error; sticky
}

const writerBufSize = 256 << 10

// NewWriter returns a Writer appending to w. Close flushes, and closes w if
// it is an io.Closer.
func NewWriter(w io.Writer) *Writer {
	hw := &Writer{bw: bufio.NewWriterSize(w, writerBufSize)}
	if f, ok := w.(*os.File); ok && isRegular(f) {
		hw.f = f // fsync only makes sense (and only works) on files
	}
	if c, ok := w.(io.Closer); ok {
		hw.c = c
	}
	return hw
}

// Create creates (or truncates) the file at path and returns a Writer to it.
func Create(path string) (*Writer, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return NewWriter(f), nil
}

// Append writes op as one line. After a write error every later call fails
// with the same error: a history with a hole in it would be worse than none.
func (w *Writer) Append(op *Op) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	line, err := AppendJSON(w.line[:0], op)
	if err != nil {
		return err // a bad op is the caller's error; the file is intact
	}
	line = append(line, '\n')
	w.line = line
	if len(line) > w.bw.Available() && w.bw.Buffered() > 0 {
		if err := w.bw.Flush(); err != nil {
			w.err = err
			return err
		}
	}
	if _, err := w.bw.Write(line); err != nil {
		w.err = err
		return err
	}
	return nil
}

// Flush writes buffered lines to the underlying writer.
func (w *Writer) Flush() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush()
}

func (w *Writer) flush() error {
	if w.err != nil {
		return w.err
	}
	if err := w.bw.Flush(); err != nil {
		w.err = err
	}
	return w.err
}

// Sync flushes and, when writing to a file, fsyncs it.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if err := w.flush(); err != nil {
		return err
	}
	if w.f != nil {
		if err := w.f.Sync(); err != nil {
			w.err = err
		}
	}
	return w.err
}

// Close syncs and closes the underlying writer if it is closable. Appends
// after Close fail.
func (w *Writer) Close() error {
	err := w.Sync()
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.c != nil {
		if cerr := w.c.Close(); err == nil {
			err = cerr
		}
		w.c = nil
	}
	if w.err == nil {
		w.err = errClosed
	}
	return err
}

var errClosed = &closedError{}

type closedError struct{}

func (*closedError) Error() string { return "histories: writer is closed" }

func isRegular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}
