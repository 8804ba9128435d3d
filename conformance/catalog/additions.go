package catalog

import (
	"fmt"
	"reflect"
	"slices"

	"github.com/goccy/go-yaml/ast"
)

// A model addition adds a model to cases declared elsewhere. `gwconform
// probe` writes them for a new model, naming the cases it passed, so the
// model joins the catalog without editing every case:
//
//	model_additions:
//	  - model: gen-image-3-nova
//	    cases: [gen-basic, edit-json-one-ref]
type modelAddition struct {
	model string
	ids   []string
	at    []Diagnostic // position of each id, for "unknown case" messages
}

// decodeAdditions reads a model_additions list.
func (l *loader) decodeAdditions(d *decoder, n ast.Node) {
	if d.resolve(n) == nil {
		d.errf(n, "model_additions: expected a list, got %s", kindOf(nil))
		return
	}
	seq := d.sequence(n, "model_additions", "a list")
	if seq == nil {
		return
	}
	for i, item := range seq.Values {
		var raw struct {
			Model string   `yaml:"model"`
			Cases []string `yaml:"cases"`
		}
		path := fmt.Sprintf("model_additions[%d]", i)
		d.decode(item, reflect.ValueOf(&raw).Elem(), path)
		if raw.Model == "" {
			d.errf(item, "%s: missing field model", path)
			continue
		}
		if len(raw.Cases) == 0 {
			d.errf(item, "%s: missing field cases (the case ids the model joins)", path)
			continue
		}
		add := modelAddition{model: raw.Model, ids: raw.Cases}
		for j := range raw.Cases {
			p := d.at(fmt.Sprintf("%s.cases[%d]", path, j))
			if casesNode := fieldNode(d, item, "cases"); casesNode != nil {
				if s, ok := casesNode.(*ast.SequenceNode); ok && j < len(s.Values) {
					p = nodePos(s.Values[j])
				}
			}
			add.at = append(add.at, Diagnostic{File: d.file, Line: p.Line, Col: p.Col})
		}
		l.additions = append(l.additions, add)
	}
}

// fieldNode returns the resolved value of a mapping's field, or nil.
func fieldNode(d *decoder, n ast.Node, key string) ast.Node {
	m, ok := d.resolve(n).(*ast.MappingNode)
	if !ok {
		return nil
	}
	for _, p := range d.pairs(m) {
		if p.key == key {
			return d.resolve(p.value)
		}
	}
	return nil
}

// applyAdditions adds each model to its cases, once all files are read.
func (l *loader) applyAdditions(cases []Case) {
	byID := map[string]*Case{}
	for i := range cases {
		byID[cases[i].ID] = &cases[i]
	}
	for _, add := range l.additions {
		for j, id := range add.ids {
			c := byID[id]
			if c == nil {
				diag := add.at[j]
				diag.Message = fmt.Sprintf("model_additions: no case with id %q", id)
				l.diags = append(l.diags, diag)
				continue
			}
			if !slices.Contains(c.Models, add.model) {
				c.Models = append(slices.Clone(c.Models), add.model)
			}
		}
	}
}
