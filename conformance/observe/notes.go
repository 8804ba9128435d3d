package observe

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/modelid"
	"github.com/gwconform/gwconform/conformance/vocab"
)

// What a request may do beyond the verified rows is no breach of the spec:
// 4.5 rule 4 says such combinations "are not guaranteed", and section 1
// that a listed model may still refuse. The judge notes them, so a team
// knows which of its requests rest on nothing the spec verifies.
//
// The verified rows are the catalog's verified cases: each is one row of
// the spec's verified tables, sent as the spec shows it, so a request is
// within them when some verified case of its endpoint and model sends the
// same parameters or more, with the same values.

// valued are the parameters whose values the verified rows name.
var valued = []string{"n", "size", "quality", "output_format", "background", "output_compression", "partial_images", "stream"}

// form is what one verified case sends: its model, its parameters' names,
// and the values of those in valued.
type form struct {
	model, feature string
	names          map[string]bool
	values         map[string]string
	refs           int    // reference images
	maxTokens      string // the max_tokens sent, which tells the bound's cases apart
}

// verifiedForms are the forms of a catalog's verified cases, by endpoint,
// and the gateway's names for the spec's models that a --model-map gives
// (gateway id → spec id).
type verifiedForms struct {
	byEndpoint map[string][]form
	models     map[string][]string // the spec ids verified on each endpoint, sorted
	aliases    map[string]string
	// negatives are the features of the negative cases, by endpoint and
	// the row they cite: a request owed a refusal is of its case's feature.
	negatives map[[2]string]string
	// listed are the spec models each key's list must name, and differs
	// the other keys' lists it must differ from, as the verified model
	// list cases say (2.1, section 1).
	listed  map[string][]string
	differs map[string][]catalog.KeyKind
	// strictListed are the models the strict cases find in each key's
	// list (the spec names no list of the text and messages keys).
	strictListed map[string][]string
}

func formsOf(cat *catalog.Catalog, modelMap map[string]string) verifiedForms {
	out := verifiedForms{byEndpoint: map[string][]form{}, models: map[string][]string{}, aliases: map[string]string{}, negatives: map[[2]string]string{},
		listed: map[string][]string{}, differs: map[string][]catalog.KeyKind{}, strictListed: map[string][]string{}}
	for spec, gw := range modelMap {
		out.aliases[gw] = spec
	}
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		if cs.Tier == vocab.TierNegative {
			for _, ref := range cs.Refs {
				out.negatives[[2]string{cs.Request.Path, string(ref)}] = cs.Feature
			}
		}
		if cs.Tier == vocab.TierStrict && cs.Request.Path == endpointModels && cs.Expect.Listed && cs.Request.Auth == catalog.AuthKey {
			out.strictListed[string(cs.Key)] = append(out.strictListed[string(cs.Key)], cs.Models...)
		}
		if cs.Tier != vocab.TierVerified || cs.Request.Auth != catalog.AuthKey {
			continue
		}
		if key := string(cs.Key); cs.Request.Path == endpointModels {
			if cs.Expect.Listed {
				out.listed[key] = append(out.listed[key], cs.Models...)
			}
			out.differs[key] = append(out.differs[key], cs.Expect.DiffersFrom...)
		}
		bodies := []any{cs.Request.JSON}
		for _, v := range cs.Variants {
			bodies = append(bodies, v.JSON)
		}
		for _, body := range bodies {
			r := cs.Request
			r.JSON = body
			names, values, refs := map[string]bool{}, map[string]string{}, 0
			if m, ok := body.(map[string]any); ok {
				for k := range m {
					names[k] = true
				}
				images, _ := m["images"].([]any)
				refs = len(images)
			}
			for _, f := range r.Multipart {
				names[f.Name] = true
				if f.Name == "image" || f.Name == "image[]" {
					refs++
				}
			}
			for _, p := range valued {
				values[p] = r.ParamText(p)
			}
			for _, model := range cs.Models {
				out.byEndpoint[r.Path] = append(out.byEndpoint[r.Path], form{model: model, feature: cs.Feature, names: names, values: values, refs: refs, maxTokens: r.ParamText("max_tokens")})
				if !slices.Contains(out.models[r.Path], model) {
					out.models[r.Path] = append(out.models[r.Path], model)
				}
			}
		}
	}
	for _, ids := range out.models {
		slices.Sort(ids)
	}
	return out
}

// feature is the feature of the verified case that sends what q sends:
// the same parameters with the same values, to the same model (the
// spec's id for it); "" when none does.
func (v verifiedForms) feature(q *Request) string {
	spec := q.Model()
	if spec != "" {
		spec = v.specModel(spec, v.models[q.Endpoint])
	}
	names := q.names()
	if q.Endpoint == endpointMessages && q.carriesImage() {
		return "messages.image_input" // its content's shape tells it, not its members
	}
	// The form that also sends the same max_tokens first: the cases of
	// the bound (256, 1024) send the members of the basic ones.
	found := ""
	for _, f := range v.byEndpoint[q.Endpoint] {
		if f.model != spec && spec != "" || f.refs != q.references() || len(f.names) != len(names) || !within(names, f.names) {
			continue
		}
		if !slices.ContainsFunc(valued, func(p string) bool { return f.values[p] != q.text(p) }) {
			if f.maxTokens == q.text("max_tokens") {
				return f.feature
			}
			found = cmp.Or(found, f.feature)
		}
	}
	return found
}

// specModel is the spec id of ids an observed model names: the one a
// --model-map gives it, the id itself, or the spec's id in a vendor's
// words (gpt-5.5 names gen-5.5); "" for none.
func (v verifiedForms) specModel(model string, ids []string) string {
	if spec, ok := v.aliases[model]; ok {
		if slices.Contains(ids, spec) {
			return spec
		}
		return ""
	}
	for _, id := range ids {
		if modelid.Same(id, model) {
			return id
		}
	}
	for _, id := range ids {
		if _, ok := modelid.Names(id, model); ok {
			return id
		}
	}
	return ""
}

// modelKey is the model a request names, by its spec id where it names a
// model verified on its endpoint ("" when it names none).
func (v verifiedForms) modelKey(q *Request) string {
	model := q.Model()
	if model == "" {
		return ""
	}
	return cmp.Or(v.specModel(model, v.models[q.Endpoint]), model)
}

// modelRows are the rows naming the models verified on each endpoint.
var modelRows = map[string]string{
	endpointChat:        "1/chat-models",
	endpointMessages:    "1/messages-models",
	endpointGenerations: "1/image-models",
	endpointEdits:       "1/image-models",
}

// notes are what q does beyond the verified rows, each citing the row it
// goes beyond. The Responses interface and the model list have no rows
// to go beyond.
func (v verifiedForms) notes(q *Request) []string {
	forms := v.byEndpoint[q.Endpoint]
	if len(forms) == 0 || (q.Body == nil && !q.Multipart()) {
		return nil
	}
	var out []string
	model := q.Model()
	spec := model
	if model != "" {
		spec = v.specModel(model, v.models[q.Endpoint])
		if spec == "" {
			return []string{fmt.Sprintf("the model %s is none the spec verifies on %s (%s); its other parameters were not weighed against the verified rows (spec %s)",
				model, q.Endpoint, strings.Join(v.models[q.Endpoint], ", "), modelRows[q.Endpoint])}
		}
	}
	var mine []form
	for _, f := range forms {
		if f.model == spec || model == "" {
			mine = append(mine, f)
		}
	}
	out = append(out, emptyNotes(q)...)
	out = append(out, valueNotes(q, mine, spec)...)
	if q.Endpoint == endpointChat || q.Endpoint == endpointMessages {
		out = append(out, messageNotes(q)...)
	}
	names := q.names()
	for _, n := range slices.Sorted(maps.Keys(names)) {
		if !slices.ContainsFunc(mine, func(f form) bool { return f.names[n] }) && !slices.Contains(valued, n) {
			out = append(out, fmt.Sprintf("%s is sent in no verified row%s (spec %s)", n, forModel(spec), typeRow(q.Endpoint, n)))
		}
	}
	refs := q.references()
	if len(out) == 0 && !slices.ContainsFunc(mine, func(f form) bool { return within(names, f.names) && refs <= f.refs }) {
		row := beyondRows[q.Endpoint]
		if row == "" {
			row = modelRows[q.Endpoint]
		}
		out = append(out, fmt.Sprintf("no verified row sends %s together%s%s (spec %s: combinations beyond the verified rows are not guaranteed)",
			strings.Join(slices.Sorted(maps.Keys(names)), ", "), refsSaid(refs), forModel(spec), row))
	}
	return out
}

// valueNotes: each valued parameter whose value no verified form of the
// model sends.
func valueNotes(q *Request, forms []form, spec string) []string {
	var out []string
	for _, p := range valued {
		got := q.text(p)
		if got == "" || p == "stream" && got == "false" {
			continue
		}
		if slices.ContainsFunc(forms, func(f form) bool { return f.values[p] == got }) {
			continue
		}
		var seen []string
		for _, f := range forms {
			if s := f.values[p]; s != "" && !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
		slices.Sort(seen)
		verified := "none"
		if len(seen) > 0 {
			verified = strings.Join(seen, ", ")
		}
		out = append(out, fmt.Sprintf("%s %s is not verified%s (verified: %s; spec %s)", p, got, forModel(spec), verified, typeRow(q.Endpoint, p)))
	}
	return out
}

// emptyNotes: a required string sent empty is sent (the rules hold), but
// no verified row sends one, and a gateway may read it as missing (an
// official client cannot leave a required string out, and sends "").
func emptyNotes(q *Request) []string {
	var out []string
	for _, m := range memberTypes {
		if m.endpoint != q.Endpoint || m.typ != "string" || (m.member != "model" && m.member != "prompt") {
			continue
		}
		if v, ok := q.param(m.member); ok && v == "" {
			out = append(out, fmt.Sprintf("%s is empty: no verified row sends an empty %[1]s, and a gateway may answer it as one without it (spec %s)", m.member, m.row))
		}
	}
	return out
}

// messageNotes: 4.2 verifies one user message, other roles not shown;
// 4.3 shows image input for the alternative model only.
func messageNotes(q *Request) []string {
	var out []string
	for _, m := range q.jsonList("messages") {
		if r, _ := m["role"].(string); r != "" && r != "user" && q.Endpoint == endpointChat {
			out = append(out, fmt.Sprintf("a message of role %s: roles other than user are not shown (spec 4.2/other-roles)", r))
			break
		}
	}
	if q.Endpoint == endpointMessages && q.carriesImage() && !q.alternative() {
		out = append(out, "an image in the content: the spec shows image input for the alternative text model only (spec 4.3/alt-image-input)")
	}
	return out
}

// names are the parameters q sends.
func (q *Request) names() map[string]bool {
	out := map[string]bool{}
	for k := range q.Body {
		out[k] = true
	}
	for _, p := range q.Parts {
		out[p.Name] = true
	}
	return out
}

// within says every name of got is one of the form's.
func within(got, form map[string]bool) bool {
	for n := range got {
		if !form[n] {
			return false
		}
	}
	return true
}

func refsSaid(n int) string {
	if n < 2 {
		return ""
	}
	return fmt.Sprintf(" with %d reference images", n)
}

func forModel(spec string) string {
	if spec == "" {
		return ""
	}
	return " for " + spec
}

// beyondRows say, per endpoint, that what goes beyond its verified rows
// is not guaranteed.
var beyondRows = map[string]string{endpointGenerations: "4.4/further-params", endpointEdits: "4.5/rule-4"}

// typeRow is the row of the parameter table that names p on an endpoint,
// or the one saying that what goes beyond them is not guaranteed.
func typeRow(endpoint, p string) string {
	for _, m := range memberTypes {
		if m.endpoint == endpoint && m.member == p {
			return m.row
		}
	}
	return cmp.Or(beyondRows[endpoint], modelRows[endpoint])
}
