package generators

import (
	"strings"
	"testing"
)

// validation is one row of a Validate table: a name, an edit of the
// table's base scenario, and the error the edited scenario must give.
type validation struct {
	name string
	edit func(*Scenario)
	want string // a part of the error; "" when valid
}

// checkValidations validates base() under each case's edit.
func checkValidations(t *testing.T, base func() Scenario, cases []validation) {
	t.Helper()
	for _, c := range cases {
		s := base()
		c.edit(&s)
		checkValidation(t, c.name, s, c.want)
	}
}

// checkValidation checks s's verdict: valid when want is "", else an
// error that contains want.
func checkValidation(t *testing.T, name string, s Scenario, want string) {
	t.Helper()
	err := s.Validate()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: %v, want valid", name, err)
	case want != "" && (err == nil || !strings.Contains(err.Error(), want)):
		t.Errorf("%s: %v, want an error containing %q", name, err, want)
	}
}
