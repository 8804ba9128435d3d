package pairwise

import "slices"

// Test helpers: the pairwise tests build constraints and count valid rows
// by enumeration to check Generate; the explore loader has its own constraints.

// Implies returns the common constraint "when param is value, other must be
// one of allowed" (e.g. background transparent → output_format png or webp).
// It cannot decide, and so allows, while either parameter is unassigned.
func Implies(param, value, other string, allowed ...string) Constraint {
	return func(a map[string]string) bool {
		v, ok := a[param]
		if !ok || v != value {
			return true
		}
		o, ok := a[other]
		return !ok || slices.Contains(allowed, o)
	}
}

// CountValid returns the number of full rows of the product that satisfy
// every constraint. It enumerates with pruning on partial rows; an invalid
// parameter list gives 0.
func CountValid(params []Parameter, constraints ...Constraint) int {
	if validate(params) != nil {
		return 0
	}
	s := newSolver(params, constraints)
	row := s.emptyRow()
	return s.count(row, 0)
}

// count returns the number of valid full rows extending r (whose set slots are
// already in the assignment map) from position pos on.
func (s *solver) count(r []int, pos int) int {
	if pos == 0 {
		s.load(r)
		if !s.allowed() {
			return 0
		}
	}
	for pos < len(s.order) && r[s.order[pos]] != unset {
		pos++
	}
	if pos == len(s.order) {
		return 1
	}
	i := s.order[pos]
	p := s.params[i]
	n := 0
	for v, val := range p.Values {
		r[i] = v
		s.assign[p.Name] = val
		if s.allowed() {
			n += s.count(r, pos+1)
		}
	}
	r[i] = unset
	delete(s.assign, p.Name)
	return n
}
