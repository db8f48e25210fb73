package fate

import (
	"context"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafkachaos/kafkachaos/histories"
)

// Outcome is the type of a send whose promise got err; buffered says
// whether the record had entered a partition's batch buffer (package doc).
// Only a record that never did is a definite failure: once buffered, kgo
// may have written it in a request, and no error it reports afterwards
// proves that no attempt was appended.
func Outcome(err error, buffered bool) histories.Type {
	switch {
	case err == nil:
		return histories.OK
	case !buffered:
		return histories.Fail
	}
	return histories.Info
}

// Mark says whether a record reached a partition buffer.
type Mark struct{ buffered atomic.Bool }

// Buffered reports whether the record reached a partition buffer.
func (m *Mark) Buffered() bool { return m.buffered.Load() }

// markKey is the context key of a record's Mark.
type markKey struct{}

// WithMark returns ctx carrying a fresh Mark, for the record's Context
// (the context Produce is given becomes it when the record has none).
func WithMark(ctx context.Context) (context.Context, *Mark) {
	m := &Mark{}
	return context.WithValue(ctx, markKey{}, m), m
}

// Hook is the kgo hook that sets a record's Mark; a client whose
// outcomes Outcome judges must have it (kgo.WithHooks).
func Hook() kgo.Hook { return bufferHook{} }

type bufferHook struct{}

// OnProduceRecordPartitioned implements kgo.HookProduceRecordPartitioned.
func (bufferHook) OnProduceRecordPartitioned(r *kgo.Record, _ int32) {
	if m, ok := r.Context.Value(markKey{}).(*Mark); ok {
		m.buffered.Store(true)
	}
}
