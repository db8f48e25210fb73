package checkers

// Chunk geometry of chunked: 4096 elements per chunk.
const (
	chunkBits = 12
	chunkSize = 1 << chunkBits
	chunkMask = chunkSize - 1
)

// chunked is an append-only array stored in fixed-size chunks. Growing it
// never copies what it holds (only the first chunk grows as a slice, so a
// small array stays small), which spares the checker the memmove and the
// transient double footprint of doubling slices holding millions of
// elements.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) len() int { return c.n }

// at returns element i, which must be below len.
func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&chunkMask] }

// push appends v and returns its index.
func (c *chunked[T]) push(v T) int {
	last := len(c.chunks) - 1
	switch {
	case last < 0:
		c.chunks = append(c.chunks, make([]T, 0, 16))
		last = 0
	case len(c.chunks[last]) == chunkSize:
		c.chunks = append(c.chunks, make([]T, 0, chunkSize))
		last++
	}
	c.chunks[last] = append(c.chunks[last], v)
	c.n++
	return c.n - 1
}
