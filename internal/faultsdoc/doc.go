// Command faultsdoc writes the fault reference (docs/faults.md) from the
// fault-kind registry: `make faults-doc`, or go generate in generators/.
// It must not know any kind itself: the registry's docs are the text.
package main
