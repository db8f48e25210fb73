package franz

import "github.com/kafkachaos/kafkachaos/histories"

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
