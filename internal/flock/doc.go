// Package flock serialises work that several processes on one machine must
// not do at once (fetching the Kafka jars into the shared cache, building the
// Kafka image, setting up the bridge of network namespaces) with an advisory
// lock on a file.
//
// It must not know what the lock guards: callers name the file and wrap its
// errors with their own package name.
package flock
