package histories

import (
	"encoding/json"
	"fmt"
)

// ClientHang is the value of a client-hang op (FClientHang): a client call
// that outlived its timeout by a grace, and how long it had blocked when the
// harness abandoned the client. The op is info (the call's outcome is
// unknown) and stands alone, without an invoke, like a crash.
type ClientHang struct {
	Call      string `json:"call"`
	TimeoutMs int64  `json:"timeout-ms"`
	GraceMs   int64  `json:"grace-ms"`
	BlockedMs int64  `json:"blocked-ms"`
}

// ClientHang reads the value of a client-hang op. Its error is a
// *fieldError (readers add file and line) naming the field at fault:
// call, timeout-ms and blocked-ms are required, grace-ms optional, other
// fields are ignored.
func (o *Op) ClientHang() (ClientHang, error) {
	var h ClientHang
	if o.Type != Info {
		return h, &fieldError{field: "type", msg: fmt.Sprintf("a %s op is info (the call's outcome is unknown), not %s", FClientHang, o.Type)}
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(o.Value, &fields); err != nil || fields == nil {
		return h, &fieldError{field: "value", msg: fmt.Sprintf(`a %s value is an object {"call", "timeout-ms", "grace-ms", "blocked-ms"}`, FClientHang)}
	}
	if err := json.Unmarshal(fields["call"], &h.Call); err != nil || h.Call == "" {
		return h, &fieldError{field: "value.call", msg: "expected the name of the call, a non-empty string"}
	}
	for _, f := range []struct {
		name     string
		dst      *int64
		optional bool
	}{{"timeout-ms", &h.TimeoutMs, false}, {"grace-ms", &h.GraceMs, true}, {"blocked-ms", &h.BlockedMs, false}} {
		raw, ok := fields[f.name]
		if !ok && f.optional {
			continue
		}
		if err := json.Unmarshal(raw, f.dst); !ok || err != nil || *f.dst < 0 || string(raw) == "null" {
			return h, &fieldError{field: "value." + f.name, msg: "expected a non-negative integer of milliseconds"}
		}
	}
	return h, nil
}
