package checkers

import (
	"testing"

	"pgregory.net/rapid"
)

// The backlog's table keeps exactly what a map would, whatever the order
// of puts and deletions, for values in order, colliding or scattered.
func TestUnreadSetIsAMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var set unreadSet
		want := map[keyValue]unread{}
		stride := rapid.SampledFrom([]int64{1, 7, 1 << 10, 1 << 20}).Draw(t, "stride")
		for i := range rapid.IntRange(0, 2000).Draw(t, "steps") {
			kv := keyValue{rapid.Int64Range(0, 2).Draw(t, "key"), stride * rapid.Int64Range(-5, 300).Draw(t, "value")}
			switch rapid.IntRange(0, 3).Draw(t, "op") {
			case 0, 1:
				u := unread{sentAt: int64(i), ackOp: -1}
				set.put(kv, u)
				want[kv] = u
			case 2:
				set.del(kv)
				delete(want, kv)
			default:
				got, ok := set.take(kv)
				if w, wok := want[kv]; ok != wok || got != w {
					t.Fatalf("step %d: take %v = %v %v, want %v %v", i, kv, got, ok, w, wok)
				}
				delete(want, kv)
			}
			probe := keyValue{kv.key, stride * rapid.Int64Range(-5, 300).Draw(t, "probe")}
			got := set.ref(probe)
			w, wok := want[probe]
			if (got != nil) != wok || got != nil && *got != w {
				t.Fatalf("step %d: ref %v = %v, want %v %v", i, probe, got, w, wok)
			}
			if got != nil { // changed in place, it stays changed
				got.final = !got.final
				w.final = got.final
				want[probe] = w
			}
		}
		n := 0
		set.each(func(kv keyValue, u unread) {
			n++
			if want[kv] != u {
				t.Fatalf("each gave %v %v, want %v", kv, u, want[kv])
			}
		})
		if n != len(want) {
			t.Fatalf("each gave %d records, want %d", n, len(want))
		}
	})
}
