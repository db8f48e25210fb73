package runner

// QuantilesOf are the quantiles of latencies given in nanoseconds, as
// Stats reports them (milliseconds), for a caller that splits a history's
// ops itself (by a fault's window, say); none gives the zero Quantiles.
func QuantilesOf(ns []int64) Quantiles {
	if len(ns) == 0 {
		return Quantiles{}
	}
	return quantiles(ns)
}
