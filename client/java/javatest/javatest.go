// Package javatest holds what the tests that start the Java client's JVM
// share: the check that a JDK is there. It must not know the client.
package javatest

import (
	"os"
	"os/exec"
	"testing"
)

// NeedJDK skips a test of the JVM where no JDK or Maven is installed: the
// Go-only suite must run without them. In CI (CI=true), whose set-up
// installs them, their absence fails the test.
func NeedJDK(t testing.TB) {
	t.Helper()
	for _, c := range []string{"java", "javac", "mvn"} {
		if _, err := exec.LookPath(c); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("the java client's tests need %s on PATH (CI=true: not skipping)", c)
			}
			t.Skipf("the java client's tests need %s on PATH", c)
		}
	}
}
