package histories

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
)

// Scan decodes in parallel: one goroutine cuts the input into blocks of
// whole lines, GOMAXPROCS workers decode blocks, and the caller's goroutine
// takes the decoded blocks in order, checks the indexes and calls fn. A
// block's ops share the block's memory, which is reclaimed once fn has seen
// them all, so memory is the blocks in flight, not the history.
const (
	blockSize = 256 << 10
	// blocksPerWorker in flight: one decoding, one decoded waiting its
	// turn, one being handed to fn.
	blocksPerWorker = 3
)

// block is a run of whole lines and the ops decoded from them.
type block struct {
	data    []byte
	first   int   // number of the block's first line
	end     bool  // the input ends in this block; its last line may lack a newline
	readErr error // reading the input failed after this block's data

	dec   *decoder
	ops   []Op
	lines []int    // line of each op
	err   error    // the first bad line, a *ParseError; decoding stopped there
	cut   *Warning // the last line was cut off and is ignored
	done  chan struct{}
}

// scanBlocks is Scan's parallel path.
func (r *Reader) scanBlocks(fn func(*Op) error) error {
	workers := runtime.GOMAXPROCS(0)
	free := make(chan *block, workers*blocksPerWorker)
	for range cap(free) {
		free <- &block{dec: newDecoder(sharePerBlock)}
	}
	work := make(chan *block, cap(free))
	order := make(chan *block, cap(free))
	stop := make(chan struct{})
	defer close(stop)
	go r.cut(free, work, order, stop)
	for range workers {
		go func() {
			for b := range work {
				r.decodeBlock(b)
				close(b.done)
			}
		}()
	}
	for b := range order {
		<-b.done
		if err := r.deliver(b, fn); err != nil {
			r.err = err
			if err == io.EOF {
				return nil
			}
			return err
		}
		free <- b
	}
	r.err = io.EOF
	return nil
}

// deliver hands b's ops to fn in order, then b's warning or error; io.EOF
// when the input ended with b.
func (r *Reader) deliver(b *block, fn func(*Op) error) error {
	for i := range b.ops {
		r.line = b.lines[i]
		if err := r.number(b.ops[i].Index); err != nil {
			return err
		}
		if err := fn(&b.ops[i]); err != nil {
			return err
		}
	}
	switch {
	case b.err != nil:
		return b.err
	case b.cut != nil:
		r.warnings = append(r.warnings, *b.cut)
	case b.readErr != nil:
		return b.readErr
	}
	if b.end {
		return io.EOF
	}
	return nil
}

// cut reads the input into blocks that end at a line end, numbers their
// lines, and queues each for a worker and, in input order, for Scan.
func (r *Reader) cut(free <-chan *block, work, order chan<- *block, stop <-chan struct{}) {
	defer close(work)
	defer close(order)
	var carry []byte
	line := r.line + 1
	for {
		var b *block
		select {
		case b = <-free:
		case <-stop:
			return
		}
		b.data = append(b.data[:0], carry...)
		b.first, b.end, b.readErr = line, false, nil
		b.done = make(chan struct{})
		err := fill(r.br, b)
		switch {
		case err == nil:
			i := bytes.LastIndexByte(b.data, '\n') + 1
			carry = append(carry[:0], b.data[i:]...)
			b.data = b.data[:i]
		case errors.Is(err, io.EOF):
			b.end = true
		default: // the ops of whole lines, then the error
			b.end, b.readErr = true, err
			b.data = b.data[:bytes.LastIndexByte(b.data, '\n')+1]
		}
		line += bytes.Count(b.data, []byte{'\n'})
		order <- b
		work <- b
		if b.end {
			return
		}
	}
}

// fill reads into b.data until it holds a whole line and at least a block's
// worth, or the input ends (the error then says why).
func fill(br io.Reader, b *block) error {
	for {
		if len(b.data) >= blockSize && bytes.IndexByte(b.data, '\n') >= 0 {
			return nil
		}
		if cap(b.data)-len(b.data) < min(cap(b.data), blockSize)/4+512 {
			b.data = slices.Grow(b.data, min(max(cap(b.data), 4096), blockSize)) // small inputs, small blocks
		}
		n, err := br.Read(b.data[len(b.data):cap(b.data)])
		b.data = b.data[:len(b.data)+n]
		if err != nil {
			return err
		}
	}
}

// decodeBlock decodes every line of b until the first bad one.
func (r *Reader) decodeBlock(b *block) {
	b.dec.begin()
	b.ops, b.lines, b.err, b.cut = b.ops[:0], b.lines[:0], nil, nil
	data, line := b.data, b.first
	for len(data) > 0 {
		text, whole := data, false
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			text, data, whole = data[:i], data[i+1:], true
		} else {
			data = nil
		}
		if !blank(text) {
			b.ops = append(b.ops, Op{})
			op := &b.ops[len(b.ops)-1]
			if err := b.dec.decode(text, op); err != nil {
				b.ops = b.ops[:len(b.ops)-1]
				r.blockError(b, line, text, whole, err)
				return
			}
			b.lines = append(b.lines, line)
		}
		line++
	}
}

// blank reports whether a line holds only white space (a line of an op
// starts with its brace).
func blank(line []byte) bool {
	return len(line) == 0 || line[0] != '{' && len(bytes.TrimSpace(line)) == 0
}

// blockError records a bad line: a cut-off last line (no newline) ends the
// history with a warning, any other is a *ParseError.
func (r *Reader) blockError(b *block, line int, text []byte, whole bool, err error) {
	if !whole && b.end && b.readErr == nil {
		b.cut = &Warning{File: r.name, Line: line,
			Msg: fmt.Sprintf("last line is cut off (%d bytes, no newline) and was ignored: %v", len(text), err)}
		return
	}
	b.err = parseErrorAt(r.name, line, err)
}
