package generators

// drawClashes reports whether a draw would refuse s's schedule by some
// clash rule (hard or soft, windows stretched by their heal budgets).
func drawClashes(s Scenario) bool { return len(clashes(s, true)) > 0 }

// footprintAlone is the footprint of a fault of kind with no parameters on
// a baseline cluster.
func footprintAlone(kind string) Footprint {
	return footprintOf(Fault{Kind: kind}, Baseline("footprint", "local", 0))
}

func isDiskKind(kind string) bool  { return footprintAlone(kind).Disk }
func isProxyKind(kind string) bool { return footprintAlone(kind).Proxies != "" }

// cutsByAddress are the kinds that cut links by a peer's address.
func cutsByAddress() []string {
	var out []string
	for _, k := range Registry() {
		if footprintAlone(k.Name).ByAddress {
			out = append(out, k.Name)
		}
	}
	return out
}
