package generators

import (
	"encoding/json"
	"fmt"
	"time"
)

// Duration is a time.Duration that reads and writes as Go's duration text
// ("1.5s"), so that scenario.json is readable and editable by hand.
type Duration time.Duration

// D returns d as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String is time.Duration's text.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalJSON writes the duration text.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

// UnmarshalJSON accepts duration text, or a number of nanoseconds.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n int64
		if nerr := json.Unmarshal(b, &n); nerr != nil {
			return fmt.Errorf("duration %s: want text such as \"1.5s\" or nanoseconds", b)
		}
		*d = Duration(n)
		return nil
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return &durationError{text: s, err: err}
	}
	*d = Duration(v)
	return nil
}

// durationError keeps the bad text so that Load can find its line.
type durationError struct {
	text string
	err  error
}

func (e *durationError) Error() string { return fmt.Sprintf("duration %q: %v", e.text, e.err) }
func (e *durationError) Unwrap() error { return e.err }
