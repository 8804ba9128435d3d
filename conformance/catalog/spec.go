package catalog

import (
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml/ast"

	"github.com/gwconform/gwconform/cases/requirements"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// The spec itself lives outside the repository; its testable sentences are
// data in it (cases/requirements/requirements.yaml), so lint, tests and CI
// check a case's `spec:` on a clean clone.

// SpecRow is one testable sentence of the spec.
type SpecRow struct {
	ID       string     `yaml:"id"`      // "<section>/<slug>", e.g. "4.5/rule-2"
	Section  string     `yaml:"section"` // e.g. "4.5"; the id's prefix
	Sentence string     `yaml:"sentence"`
	Tier     vocab.Tier `yaml:"tier"` // the tier the sentence implies
	// NotTestable, when set, says why no black-box call can check the
	// sentence; such a row cannot be cited.
	NotTestable string `yaml:"not_testable"`
	// What proves the row both ways: the reference-gateway faults that
	// break it (each fails a case citing the row) and the legal variations
	// of the spec's words that must pass its cases. conformance's tests
	// check both lists against the faults and variations they run.
	Faults     []string `yaml:"faults"`
	Variations []string `yaml:"variations"`
}

// Proven says whether a row is proven both ways as far as a black-box suite
// can: a fault that breaks it is caught. An explore row cannot fail by
// design and is never proven.
func (r SpecRow) Proven() bool { return len(r.Faults) > 0 && r.Tier != vocab.TierExplore }

// Spec is the loaded requirements file: its rows in file order.
type Spec struct {
	Rows []SpecRow

	byID      map[string]*SpecRow
	bySection map[string][]*SpecRow // testable rows only
}

// SpecRef is one reference of a case's `spec:`: a row id ("4.5/rule-2") or a
// section ("4.5", every testable row of exactly that section).
type SpecRef string

// SpecRefs is a case's `spec:`: in YAML one reference or a list of them.
type SpecRefs []SpecRef

// String renders the references the way results.jsonl records them.
func (rs SpecRefs) String() string {
	s := make([]string, len(rs))
	for i, r := range rs {
		s[i] = string(r)
	}
	return strings.Join(s, ", ")
}

// IsRow reports whether the reference names one row rather than a section.
func (r SpecRef) IsRow() bool { return strings.Contains(string(r), "/") }

// Resolve returns the rows a reference stands for. The error reads as the
// rest of a diagnostic: "unknown requirement ...".
func (s *Spec) Resolve(ref SpecRef) ([]*SpecRow, error) {
	if ref.IsRow() {
		row := s.byID[string(ref)]
		switch {
		case row == nil:
			return nil, fmt.Errorf("unknown requirement %q%s", ref, Closest(string(ref), s.ids()))
		case row.NotTestable != "":
			return nil, fmt.Errorf("requirement %s is marked not testable (%s)", ref, row.NotTestable)
		}
		return []*SpecRow{row}, nil
	}
	if rows := s.bySection[string(ref)]; len(rows) > 0 {
		return rows, nil
	}
	return nil, fmt.Errorf("unknown reference %q: give a requirement id such as 4.5/rule-2 or a section such as 4.5 (cases/requirements/requirements.yaml)", ref)
}

// RowsOf resolves references to their rows, in order: what a generic
// check's reason or the judge's finding cites. A row id names its row even
// when no case may cite it (not_testable): the judge checks such a row of
// a client's traffic and quotes its sentence. References that resolve to
// nothing are skipped (the loader reports them); a nil Spec has no rows.
func (s *Spec) RowsOf(refs SpecRefs) []*SpecRow {
	if s == nil {
		return nil
	}
	var rows []*SpecRow
	for _, ref := range refs {
		if row := s.byID[string(ref)]; row != nil {
			rows = append(rows, row)
			continue
		}
		rs, _ := s.Resolve(ref)
		rows = append(rows, rs...)
	}
	return rows
}

// Sentences is what a case with these references checks, in words: the
// sentences of the rows they stand for, in order (a row once), then the
// case's own words (its requirement:, what the rows do not say), if any.
// References that resolve to nothing are skipped: the loader reports them.
func (s *Spec) Sentences(refs SpecRefs, own string) string {
	var parts []string
	seen := map[string]bool{}
	for _, ref := range refs {
		rows, err := s.Resolve(ref)
		if err != nil {
			continue
		}
		for _, row := range rows {
			if !seen[row.ID] {
				seen[row.ID] = true
				parts = append(parts, strings.TrimSpace(row.Sentence))
			}
		}
	}
	if own = strings.TrimSpace(own); own != "" {
		parts = append(parts, own)
	}
	return strings.Join(parts, " ")
}

func (s *Spec) ids() []string {
	out := make([]string, len(s.Rows))
	for i := range s.Rows {
		out[i] = s.Rows[i].ID
	}
	return out
}

// specFile is where the embedded requirements file is shown in diagnostics.
const specFile = "cases/requirements/requirements.yaml"

// embeddedSpec parses the embedded requirements file once.
var embeddedSpec = sync.OnceValues(func() (*Spec, error) {
	return LoadSpec(specFile, requirements.YAML)
})

var (
	sectionPattern = `(intro|[1-9][0-9]*(\.[1-9][0-9]*)*)`
	sectionRE      = regexp.MustCompile(`^` + sectionPattern + `$`)
	rowIDRE        = regexp.MustCompile(`^` + sectionPattern + `/[a-z0-9][a-z0-9.-]*$`)
)

// LoadSpec reads a requirements file (`requirements:`, a list of rows) as
// strictly as case files: every problem comes back in Diagnostics at
// file:line:col.
func LoadSpec(file string, data []byte) (*Spec, error) {
	var ds Diagnostics
	d := newDecoder(file, &ds, nil)
	root, ok := d.document(data)
	if !ok {
		return nil, ds
	}
	seq := d.requirementsList(root)
	if seq == nil {
		return nil, ds
	}
	s := &Spec{}
	firstAt := map[string]Pos{}
	for _, item := range seq.Values {
		d.resetCase()
		item = d.resolve(item)
		if _, ok := item.(*ast.MappingNode); !ok {
			d.errf(item, "a requirement row must be a mapping, got %s", kindOf(item))
			continue
		}
		s.Rows = append(s.Rows, d.decodeRow(item, firstAt))
	}
	if len(ds) > 0 {
		return nil, ds.sorted()
	}
	s.index()
	return s, nil
}

// requirementsList is the list of rows of a requirements file, its one
// field; nil after reporting a file without one.
func (d *decoder) requirementsList(root ast.Node) *ast.SequenceNode {
	var rowsNode ast.Node
	if m, ok := d.resolve(root).(*ast.MappingNode); ok {
		for _, p := range d.pairs(m) {
			if p.key != "requirements" {
				d.errf(p.keyNode, "unknown field %q in requirements file; known fields: requirements", p.key)
				continue
			}
			rowsNode = p.value
		}
	}
	seq := d.sequence(rowsNode, "requirements", "a list of requirement rows")
	if seq == nil && rowsNode == nil {
		d.errAt(Pos{1, 1}, "expected a mapping with requirements: a list of rows")
	}
	return seq
}

// decodeRow decodes one requirement row and checks it; firstAt holds where
// each id was declared first.
func (d *decoder) decodeRow(item ast.Node, firstAt map[string]Pos) SpecRow {
	var row SpecRow
	d.pos[""] = nodePos(item)
	d.decode(item, reflect.ValueOf(&row).Elem(), "")
	for _, field := range []string{"id", "section", "sentence", "tier"} {
		if !d.present[field] {
			d.missingField(field)
		}
	}
	if d.present["sentence"] && strings.TrimSpace(row.Sentence) == "" {
		d.errAt(d.at("sentence"), "sentence: empty")
	}
	d.checkRowID(&row, firstAt)
	d.checkRowValues(&row)
	return row
}

// checkRowID: an id is <section>/<slug> of the row's own section, and
// declared once.
func (d *decoder) checkRowID(row *SpecRow, firstAt map[string]Pos) {
	if row.ID == "" {
		return
	}
	if !rowIDRE.MatchString(row.ID) {
		d.errAt(d.at("id"), "id %q must be <section>/<slug>, e.g. 4.5/rule-2", row.ID)
	} else if sec, _, _ := strings.Cut(row.ID, "/"); row.Section != "" && sec != row.Section {
		d.errAt(d.at("section"), "section %q does not match the id %s", row.Section, row.ID)
	}
	if first, dup := firstAt[row.ID]; dup {
		d.errAt(d.at("id"), "duplicate id %q (first declared at %s:%d:%d)", row.ID, d.file, first.Line, first.Col)
	} else {
		firstAt[row.ID] = d.at("id")
	}
}

// checkRowValues: a section number, a known tier, and for a row not
// testable a reason and no proofs.
func (d *decoder) checkRowValues(row *SpecRow) {
	if row.Section != "" && !sectionRE.MatchString(row.Section) {
		d.errAt(d.at("section"), "section %q is not a section number such as 4.5 (or intro)", row.Section)
	}
	if row.Tier != "" && !row.Tier.Valid() {
		d.errAt(d.at("tier"), "tier %q is not one of %s", row.Tier, joinStrings(vocab.Tiers))
	}
	if d.present["not_testable"] && strings.TrimSpace(row.NotTestable) == "" {
		d.errAt(d.at("not_testable"), "not_testable: empty; give the reason, or leave the field out")
	}
	if row.NotTestable != "" && len(row.Faults)+len(row.Variations) > 0 {
		d.errAt(d.at("not_testable"), "a row not testable has no faults or variations to prove it")
	}
}

// index looks the rows up by id, and the testable ones by section.
func (s *Spec) index() {
	s.byID, s.bySection = map[string]*SpecRow{}, map[string][]*SpecRow{}
	for i := range s.Rows {
		row := &s.Rows[i]
		s.byID[row.ID] = row
		if row.NotTestable == "" {
			s.bySection[row.Section] = append(s.bySection[row.Section], row)
		}
	}
}

var specRefsType = reflect.TypeFor[SpecRefs]()

// decodeSpecRefs reads `spec:`, one reference or a list of them, recording
// each reference's position as path[i] so an unknown one is reported where
// it is written.
func (d *decoder) decodeSpecRefs(n ast.Node, out *SpecRefs, path string) {
	if isNull(n) {
		return
	}
	items := []ast.Node{n}
	if seq, ok := n.(*ast.SequenceNode); ok {
		items = seq.Values
	}
	refs := SpecRefs{}
	for i, item := range items {
		item = d.resolve(item)
		if item == nil {
			continue
		}
		s, ok := scalarText(item)
		if !ok {
			d.mismatch(item, path, "expected a requirement id or a list of them, got %s", kindOf(item))
			continue
		}
		d.pos[fmt.Sprintf("%s[%d]", path, len(refs))] = nodePos(item)
		if s = strings.TrimSpace(s); s == "" && len(items) > 1 {
			d.mismatch(item, path, "item %d is empty", i)
			continue
		}
		if s != "" {
			refs = append(refs, SpecRef(s))
		}
	}
	*out = refs
}

// validateSpecRefs resolves every reference of a case against the spec.
func (l *loader) validateSpecRefs(d *decoder, c *Case) {
	if d.present["spec"] && len(c.Refs) == 0 && !d.failed["spec"] {
		d.errAt(d.at("spec"), "spec: empty")
	}
	for i, r := range c.Refs {
		at := d.at(fmt.Sprintf("spec[%d]", i))
		if slices.Index(c.Refs, r) < i {
			d.errAt(at, "spec: %s listed twice", r)
		} else if _, err := l.spec.Resolve(r); err != nil {
			d.errAt(at, "spec: %v", err)
		}
	}
}
