package catalog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// SettingsEntry is one value of a settings file (gwconform.yaml) as
// written, with where it stands, so a bad value is reported at its place.
type SettingsEntry struct {
	// Text is a scalar's text; Lines a list's scalars (a scalar alone is a
	// list of one).
	Text  string
	Lines []string
	// At is "file:line:col" of the value.
	At string
}

// ReadSettings reads a settings file with the case files' strict reader:
// one mapping whose keys are scalars (a scalar value), lists (a list of
// scalars, or one scalar) or groups (a mapping of lists: headers: {all:
// [...], text: [...]}), read as "group.key". An
// unknown key (with a did-you-mean), a duplicate, or a value of the wrong
// shape is a diagnostic at file:line:col; every problem is reported.
func ReadSettings(file string, data []byte, scalars, lists []string, groups map[string][]string) (map[string]SettingsEntry, error) {
	var ds Diagnostics
	d := newDecoder(file, &ds, nil)
	root, ok := d.document(data)
	if !ok {
		return nil, ds
	}
	out := map[string]SettingsEntry{}
	if isNull(root) {
		return out, nil // an empty file sets nothing
	}
	m, ok := d.resolve(root).(*ast.MappingNode)
	if !ok {
		d.errf(root, "a settings file is a mapping of settings, got %s", kindOf(d.resolve(root)))
		return nil, ds
	}
	known := append(append(slices.Clone(scalars), lists...), mapKeys(groups)...)
	for _, p := range d.pairs(m) {
		v := d.resolve(p.value)
		switch {
		case slices.Contains(scalars, p.key):
			text, ok := scalarText(v)
			if !ok {
				d.errf(v, "%s: expected a single value, got %s", p.key, kindOf(v))
				continue
			}
			out[p.key] = SettingsEntry{Text: text, At: d.place(v)}
		case slices.Contains(lists, p.key):
			if lines, ok := d.scalarList(p.value, p.key); ok {
				out[p.key] = SettingsEntry{Lines: lines, At: d.place(v)}
			}
		case groups[p.key] != nil:
			d.readSettingsGroup(p.key, v, groups[p.key], out)
		case p.key == "keys" || strings.HasSuffix(p.key, "_key"):
			// The file may be committed: a key there would leak.
			d.errf(p.keyNode, "%q: keys are never read from a settings file, which may be committed; give each in its variable (GWCONFORM_TEXT_KEY, GWCONFORM_MESSAGES_KEY, GWCONFORM_IMAGE_KEY, GWCONFORM_ALT_KEY) or flag (--text-key ...)", p.key)
		default:
			d.errf(p.keyNode, "unknown setting %q%s", p.key, Closest(p.key, known))
		}
	}
	if len(ds) > 0 {
		return nil, ds.sorted()
	}
	return out, nil
}

// readSettingsGroup reads the group name (v, a mapping of keys to lists)
// into out as "name.key".
func (d *decoder) readSettingsGroup(name string, v ast.Node, keys []string, out map[string]SettingsEntry) {
	m, ok := v.(*ast.MappingNode)
	if !ok {
		d.errf(v, "%s: expected a mapping of %s, got %s", name, joinStrings(keys), kindOf(v))
		return
	}
	for _, p := range d.pairs(m) {
		if !slices.Contains(keys, p.key) {
			d.errf(p.keyNode, "unknown key %q in %s; known keys: %s%s", p.key, name, joinStrings(keys), Closest(p.key, keys))
			continue
		}
		if lines, ok := d.scalarList(p.value, name+"."+p.key); ok {
			out[name+"."+p.key] = SettingsEntry{Lines: lines, At: d.place(d.resolve(p.value))}
		}
	}
}

// place is "file:line:col" of a node.
func (d *decoder) place(n ast.Node) string {
	p := nodePos(n)
	return fmt.Sprintf("%s:%d:%d", d.file, p.Line, p.Col)
}

// scalarList reads a list of scalars, or one scalar as a list of one.
func (d *decoder) scalarList(n ast.Node, field string) ([]string, bool) {
	n = d.resolve(n)
	if text, ok := scalarText(n); ok {
		return []string{text}, true
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		d.errf(n, "%s: expected a list of values, got %s", field, kindOf(n))
		return nil, false
	}
	var lines []string
	for _, item := range seq.Values {
		text, ok := scalarText(d.resolve(item))
		if !ok {
			d.errf(item, "%s: expected a value, got %s", field, kindOf(d.resolve(item)))
			return nil, false
		}
		lines = append(lines, text)
	}
	return lines, true
}

func mapKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
