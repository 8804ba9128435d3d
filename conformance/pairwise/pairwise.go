// Package pairwise generates all-pairs (pairwise) test rows for the explore
// tier: parameter domains whose full Cartesian product would cost too many
// paid calls are reduced to a set of rows in which every pair of values of
// every two parameters still appears at least once.
//
// No maintained Go library does all-pairs generation, so this package is a
// small, deterministic implementation of IPOG (In-Parameter-Order-General,
// Lei and Tai): start from every pair of the first two parameters, then add
// one parameter at a time, first extending the existing rows with the value
// that covers the most still-uncovered pairs (horizontal growth), then adding
// or completing rows for the pairs left over (vertical growth). It was written
// from the published description of the algorithm; no code was copied.
//
// Constraints are handled inside the algorithm rather than by filtering rows
// afterwards, because filtering would silently lose pairs: a pair is demanded
// only if some valid full row can contain it (checked by a search over the
// parameters not yet assigned), and every partial row is kept completable, so
// that the don't-care slots left at the end can always be filled with values
// that keep the row valid. The searches are exhaustive with pruning, which is
// fine for the small domains of request parameters and would not be for
// domains with thousands of valid-row dead ends.
//
// Determinism: no map is iterated; parameters are processed in order of
// decreasing domain size (ties in declaration order), and every choice breaks
// ties by the lowest value index, so the same input gives the same rows.
package pairwise

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
)

// Parameter is one dimension of the domain: a name (e.g. a request field) and
// the values to try, in the order ties are broken.
type Parameter struct {
	Name   string
	Values []string
}

// Constraint reports whether a (possibly partial) assignment is allowed;
// params not yet assigned are absent from the map. It must return true when it
// cannot decide yet. The map is reused between calls: a Constraint must not
// keep or modify it.
type Constraint func(assign map[string]string) bool

// ErrNoValidRow is returned when the constraints admit no full row at all,
// which almost always means the constraints of a domain contradict each other.
var ErrNoValidRow = errors.New("pairwise: the constraints admit no valid row")

// Cartesian returns the size of the full product of the domains, ignoring
// constraints. An empty parameter list has no rows and gives 0.
func Cartesian(params []Parameter) int {
	if len(params) == 0 {
		return 0
	}
	n := 1
	for _, p := range params {
		n *= len(p.Values)
	}
	return n
}

// Generate returns rows (one value per parameter, in parameter order) such
// that every pair of values of every two parameters that some valid full row
// can contain appears in at least one row, and every row satisfies all
// constraints. Deterministic: same input → same output.
//
// With a single parameter it returns one row per value that a valid row can
// hold. It fails on an empty parameter list, a parameter without values, an
// empty or duplicate name, a duplicate value within a parameter, or
// constraints that admit no valid row (ErrNoValidRow).
func Generate(params []Parameter, constraints ...Constraint) ([][]string, error) {
	if err := validate(params); err != nil {
		return nil, err
	}
	s := newSolver(params, constraints)
	if _, ok := s.complete(s.emptyRow()); !ok {
		return nil, ErrNoValidRow
	}
	rows := s.ipog()

	// Fill the don't-care slots. Every row was kept completable, so complete
	// cannot fail here; duplicates that filling may create are dropped.
	out := make([][]string, 0, len(rows))
	seen := make(map[string]bool, len(rows))
	for _, r := range rows {
		full, ok := s.complete(r)
		if !ok {
			return nil, fmt.Errorf("pairwise: internal error: row %v became uncompletable", r)
		}
		key := fmt.Sprint(full)
		if seen[key] {
			continue
		}
		seen[key] = true
		vals := make([]string, len(full))
		for i, v := range full {
			vals[i] = params[i].Values[v]
		}
		out = append(out, vals)
	}
	return out, nil
}

func validate(params []Parameter) error {
	if len(params) == 0 {
		return errors.New("pairwise: no parameters")
	}
	names := make(map[string]bool, len(params))
	for i, p := range params {
		if p.Name == "" {
			return fmt.Errorf("pairwise: parameter %d has no name", i)
		}
		if names[p.Name] {
			return fmt.Errorf("pairwise: duplicate parameter %q", p.Name)
		}
		names[p.Name] = true
		if len(p.Values) == 0 {
			return fmt.Errorf("pairwise: parameter %q has no values", p.Name)
		}
		// A repeated value would make two indexes stand for one pair, so the
		// coverage bookkeeping would demand a pair twice.
		vals := make(map[string]bool, len(p.Values))
		for _, v := range p.Values {
			if vals[v] {
				return fmt.Errorf("pairwise: parameter %q repeats value %q", p.Name, v)
			}
			vals[v] = true
		}
	}
	return nil
}

// solver holds the domain, the constraints and one reusable assignment map
// (constraints are called very often; a fresh map per call would dominate).
type solver struct {
	params []Parameter
	cons   []Constraint
	order  []int // parameter indexes in processing order
	assign map[string]string
}

// unset marks a don't-care slot in a row of value indexes.
const unset = -1

func newSolver(params []Parameter, cons []Constraint) *solver {
	order := make([]int, len(params))
	for i := range order {
		order[i] = i
	}
	// Larger domains first: IPOG's row count is bounded below by the product
	// of the two largest domains, and starting with them lets later, smaller
	// parameters fit into existing rows instead of forcing new ones.
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(len(params[b].Values), len(params[a].Values))
	})
	return &solver{params: params, cons: cons, order: order, assign: make(map[string]string, len(params))}
}

func (s *solver) emptyRow() []int {
	r := make([]int, len(s.params))
	for i := range r {
		r[i] = unset
	}
	return r
}

func (s *solver) allowed() bool {
	for _, c := range s.cons {
		if !c(s.assign) {
			return false
		}
	}
	return true
}

// load puts the set slots of row into the assignment map.
func (s *solver) load(row []int) {
	clear(s.assign)
	for i, v := range row {
		if v != unset {
			s.assign[s.params[i].Name] = s.params[i].Values[v]
		}
	}
}

// complete returns a copy of row with every don't-care slot filled so that the
// row satisfies all constraints, taking the lowest value index that still
// leads to a valid row, or false if no such completion exists.
func (s *solver) complete(row []int) ([]int, bool) {
	r := slices.Clone(row)
	s.load(r)
	if !s.allowed() {
		return nil, false
	}
	if !s.fill(r, 0) {
		return nil, false
	}
	return r, true
}

// completable reports whether row can be completed to a valid full row.
func (s *solver) completable(row []int) bool {
	_, ok := s.complete(row)
	return ok
}

// fill is the depth-first search behind complete: it assigns the unset slots
// from position pos of the processing order on, backtracking on a constraint
// violation. The assignment map mirrors r throughout.
func (s *solver) fill(r []int, pos int) bool {
	for pos < len(s.order) && r[s.order[pos]] != unset {
		pos++
	}
	if pos == len(s.order) {
		return true
	}
	i := s.order[pos]
	p := s.params[i]
	for v, val := range p.Values {
		r[i] = v
		s.assign[p.Name] = val
		if s.allowed() && s.fill(r, pos+1) {
			return true
		}
	}
	r[i] = unset
	delete(s.assign, p.Name)
	return false
}

// ipog builds the rows as value indexes with don't-care slots.
func (s *solver) ipog() [][]int {
	var rows [][]int
	first := s.order[0]
	if len(s.order) == 1 {
		for v := range s.params[first].Values {
			r := s.emptyRow()
			r[first] = v
			if s.completable(r) {
				rows = append(rows, r)
			}
		}
		return rows
	}

	// The first two parameters: one row per feasible pair.
	second := s.order[1]
	for a := range s.params[first].Values {
		for b := range s.params[second].Values {
			r := s.emptyRow()
			r[first], r[second] = a, b
			if s.completable(r) {
				rows = append(rows, r)
			}
		}
	}

	for pos := 2; pos < len(s.order); pos++ {
		rows = s.extend(rows, pos)
	}
	return rows
}

// extend adds the parameter at processing position pos to rows, covering
// every feasible pair between it and the parameters before it.
func (s *solver) extend(rows [][]int, pos int) [][]int {
	pc := s.newPairCover(pos)
	pc.growHorizontally(rows)
	return pc.growVertically(rows)
}

// pairCover tracks the pairs between the parameter k at processing
// position pos and the parameters before it that no row covers yet.
type pairCover struct {
	s      *solver
	pos, k int
	nk     int // values of k
	// uncovered[q][a*nk+v]: the pair (param order[q] = a, param k = v) is
	// feasible and in no row yet.
	uncovered [][]bool
	left      int
}

func (s *solver) newPairCover(pos int) *pairCover {
	k := s.order[pos]
	pc := &pairCover{s: s, pos: pos, k: k, nk: len(s.params[k].Values), uncovered: make([][]bool, pos)}
	for q := range pos {
		j := s.order[q]
		nj := len(s.params[j].Values)
		pc.uncovered[q] = make([]bool, nj*pc.nk)
		for a := range nj {
			for v := range pc.nk {
				r := s.emptyRow()
				r[j], r[k] = a, v
				if s.completable(r) {
					pc.uncovered[q][a*pc.nk+v] = true
					pc.left++
				}
			}
		}
	}
	return pc
}

// cover marks every pair of parameter k that row r now holds as covered.
func (pc *pairCover) cover(r []int) {
	v := r[pc.k]
	if v == unset {
		return
	}
	for q := range pc.pos {
		if a := r[pc.s.order[q]]; a != unset && pc.uncovered[q][a*pc.nk+v] {
			pc.uncovered[q][a*pc.nk+v] = false
			pc.left--
		}
	}
}

// gain is how many uncovered pairs row r would cover with k = v.
func (pc *pairCover) gain(r []int, v int) int {
	g := 0
	for q := range pc.pos {
		if a := r[pc.s.order[q]]; a != unset && pc.uncovered[q][a*pc.nk+v] {
			g++
		}
	}
	return g
}

// growHorizontally gives each row the value of k that covers the most
// uncovered pairs while keeping the row completable. A row that would gain
// nothing keeps k as don't-care, so vertical growth can still use it.
func (pc *pairCover) growHorizontally(rows [][]int) {
	type cand struct{ v, gain int }
	for _, r := range rows {
		if pc.left == 0 {
			break
		}
		order := make([]cand, pc.nk)
		for v := range pc.nk {
			order[v] = cand{v, pc.gain(r, v)}
		}
		// Stable on the value index, so ties go to the lowest index.
		slices.SortStableFunc(order, func(x, y cand) int { return cmp.Compare(y.gain, x.gain) })
		for _, c := range order {
			if c.gain == 0 {
				break
			}
			r[pc.k] = c.v
			if pc.s.completable(r) {
				pc.cover(r)
				break
			}
			r[pc.k] = unset
		}
	}
}

// growVertically covers each pair still uncovered: in the don't-care
// slots of an existing row if that keeps it completable, else in a new
// row holding just the pair (feasible by construction).
func (pc *pairCover) growVertically(rows [][]int) [][]int {
	for q := range pc.pos {
		j := pc.s.order[q]
		for a := range len(pc.s.params[j].Values) {
			for v := range pc.nk {
				if !pc.uncovered[q][a*pc.nk+v] || pc.placeInRow(rows, j, a, v) {
					continue
				}
				r := pc.s.emptyRow()
				r[j], r[pc.k] = a, v
				rows = append(rows, r)
				pc.cover(r)
			}
		}
	}
	return rows
}

// placeInRow puts the pair (j = a, k = v) into the first row whose slots
// allow it and stay completable, and reports whether one did.
func (pc *pairCover) placeInRow(rows [][]int, j, a, v int) bool {
	k := pc.k
	for _, r := range rows {
		if (r[j] != unset && r[j] != a) || (r[k] != unset && r[k] != v) {
			continue
		}
		oj, ok := r[j], r[k]
		r[j], r[k] = a, v
		if pc.s.completable(r) {
			pc.cover(r)
			return true
		}
		r[j], r[k] = oj, ok
	}
	return false
}
