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
	ednInFlight  = 3 // chunks per worker
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

// ednBounds returns the starts of chunks of about size bytes of data from
// from, the last one where the sequential path takes over; fewer than
// three bounds mean there is nothing to share.
func ednBounds(data []byte, from, size int) []int {
	bounds := []int{from}
	depth, last := 0, byte(0) // last: the previous significant byte at any depth
	for i := from; i < len(data); i++ {
		switch c := data[i]; c {
		case ' ', '\t', '\n', '\r', ',', '\f':
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
			last = '"'
		case '\\':
			i++ // a character: \( or \" is no delimiter
			last = '\\'
		case '(', '[', '{':
			if c == '{' && depth == 0 && last == '}' && i-bounds[len(bounds)-1] >= size {
				bounds = append(bounds, i)
			}
			depth++
			last = c
		case ')', ']', '}':
			if depth--; depth < 0 {
				return bounds // the history vector closed
			}
			last = c
		case '#':
			if depth == 0 && last == '}' && i-bounds[len(bounds)-1] >= size {
				bounds = append(bounds, i)
			}
			last = c
		default:
			last = c
		}
	}
	return bounds
}

// scanChunks reads the chunks between bounds in parallel and hands their
// ops to fn; it leaves st.p.i where the sequential path goes on.
func (st *ednScan) scanChunks(bounds []int, fn func(*Op) error) error {
	p := &st.p
	workers := runtime.GOMAXPROCS(0)
	chunks := make(chan *ednChunk, len(bounds))
	work := make(chan *ednChunk)
	ahead := make(chan struct{}, workers*ednInFlight) // chunks read and not yet handed on
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(work)
		for i := 0; i+1 < len(bounds); i++ {
			c := &ednChunk{start: bounds[i], end: bounds[i+1], done: make(chan struct{})}
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
	for i := 0; i+1 < len(bounds); i++ {
		c := <-chunks
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
	p.i = bounds[len(bounds)-1]
	return nil
}

// readChunk reads every op of c, or marks it failed at the first that
// does not read.
func readChunk(data []byte, c *ednChunk) {
	q := ednParser{b: data[:c.end], i: c.start}
	for {
		if err := q.ws(0); err != nil {
			c.failed = true
			return
		}
		if q.i >= c.end {
			return
		}
		start := q.i
		if op, hasIndex, end, ok := ednFast(q.b, start); ok {
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
