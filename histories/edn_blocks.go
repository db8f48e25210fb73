package histories

import (
	"runtime"
	"sync"
)

// An EDN history is read in parallel like a JSONL one: its text is cut
// into chunks of whole ops, workers read the chunks' ops, and the caller's
// goroutine numbers them and hands them on in order. The chunks end where
// a map closed at the top level and an op ('{' or '#') begins, which no
// tag, discarded form, string, character or comment can fake. The last
// chunk, and any chunk a worker could not read whole, are read by the
// sequential path, so that every error and warning is the one it gives.
const (
	ednChunkSize = 1 << 20
	ednInFlight  = 3   // chunks per worker
	ednSlabRun   = 256 // ops per array of a chunk's slab
)

// ednChunk is a run of whole top-level forms and the ops read from them.
type ednChunk struct {
	start, end int
	ops        []*Op
	hasIndex   []bool
	pos        []int // where each op's form starts
	failed     bool  // a form did not read: the sequential path reads it again
	done       chan struct{}
}

// ednCutter finds where chunks may start, scanning the text once, as the
// chunks are handed out: each cut is at least size bytes past the one
// before.
type ednCutter struct {
	data  []byte
	i     int
	depth int
	last  byte // the previous significant byte at any depth
	done  bool // the history vector closed, or the text ended
}

// Byte classes of ednCutter: most bytes of a history are plain, and a
// table spares them the switch.
const (
	ednPlain = iota
	ednSpace
	ednSpecial
)

// ednClasses returns the class of every byte.
func ednClasses() (t [256]uint8) {
	for _, c := range []byte(" \t\n\r,\f") {
		t[c] = ednSpace
	}
	for _, c := range []byte(";\"\\([{)]}#") {
		t[c] = ednSpecial
	}
	return t
}

// next returns the next cut at least size bytes past from, or false when
// the text has none: the sequential path reads from the last cut on.
func (cu *ednCutter) next(from, size int, class *[256]uint8) (int, bool) {
	data := cu.data
	for i := cu.i; !cu.done && i < len(data); i++ {
		c := data[i]
		switch class[c] {
		case ednPlain:
			cu.last = c
			continue
		case ednSpace:
			continue
		}
		switch c {
		case ';':
			for i < len(data) && data[i] != '\n' {
				i++
			}
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
			cu.last = '"'
		case '\\':
			i++ // a character: \( or \" is no delimiter
			cu.last = '\\'
		case '(', '[', '{':
			if c == '{' && cu.depth == 0 && cu.last == '}' && i-from >= size {
				cu.i = i + 1
				cu.depth++
				cu.last = c
				return i, true
			}
			cu.depth++
			cu.last = c
		case ')', ']', '}':
			if cu.depth--; cu.depth < 0 {
				cu.done = true // the history vector closed
			}
			cu.last = c
		case '#':
			if cu.depth == 0 && cu.last == '}' && i-from >= size {
				cu.i = i + 1
				cu.last = c
				return i, true
			}
			cu.last = c
		}
	}
	cu.done = true
	return 0, false
}

// scanChunks reads the text from p.i in chunks of about ednChunkSize, in
// parallel, and hands their ops to fn; it leaves p.i where the sequential
// path goes on: the last cut, or the first chunk that did not read whole.
func (st *ednScan) scanChunks(fn func(*Op) error) error {
	p := &st.p
	workers := runtime.GOMAXPROCS(0)
	ahead := make(chan struct{}, workers*ednInFlight) // chunks cut and not yet handed on
	chunks := make(chan *ednChunk, cap(ahead))
	work := make(chan *ednChunk)
	stop := make(chan struct{})
	defer close(stop)
	last := p.i // the last cut; read once chunks is closed
	go func() {
		defer close(work)
		defer close(chunks)
		class := ednClasses()
		cu := ednCutter{data: p.b, i: p.i}
		for {
			end, ok := cu.next(last, ednChunkSize, &class)
			if !ok {
				return
			}
			c := &ednChunk{start: last, end: end, done: make(chan struct{})}
			last = end
			select {
			case ahead <- struct{}{}:
			case <-stop:
				return
			}
			chunks <- c
			select {
			case work <- c:
			case <-stop:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	defer wg.Wait()
	for range workers {
		wg.Go(func() {
			for c := range work {
				readChunk(p.b, c)
				close(c.done)
			}
		})
	}
	for c := range chunks {
		<-c.done
		if c.failed {
			p.i = c.start
			return nil
		}
		for j, op := range c.ops {
			if err := st.number(op, c.hasIndex[j], c.pos[j]); err != nil {
				return st.wrap(err)
			}
			if err := fn(op); err != nil {
				return err
			}
		}
		<-ahead
	}
	p.i = last
	return nil
}

// readChunk reads every op of c, or marks it failed at the first that
// does not read.
func readChunk(data []byte, c *ednChunk) {
	q := ednParser{b: data[:c.end], i: c.start}
	slab := &ednSlab{run: ednSlabRun}
	for {
		if err := q.ws(0); err != nil {
			c.failed = true
			return
		}
		if q.i >= c.end {
			return
		}
		start := q.i
		if op, hasIndex, end, ok := ednFast(q.b, start, slab); ok {
			c.ops, c.hasIndex, c.pos = append(c.ops, op), append(c.hasIndex, hasIndex), append(c.pos, start)
			q.i = end
			continue
		}
		q.reclaim()
		v, err := q.value(0)
		if err != nil {
			c.failed = true
			return
		}
		op, hasIndex, err := ednOp(&v, data)
		if err != nil {
			c.failed = true
			return
		}
		c.ops, c.hasIndex, c.pos = append(c.ops, op), append(c.hasIndex, hasIndex), append(c.pos, start)
	}
}
