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

// paired are the valued parameters whose verified values go with another
// parameter's value (4.5: background transparent with png or webp, opaque
// with jpeg; output_compression 0 and 100 with jpeg, 50 with webp).
var paired = map[string]string{"background": "output_format", "output_compression": "output_format"}

// isDefault says a parameter's text is the value the spec states for it
// omitted, so that sending it asks for nothing more than leaving it out:
// n 1 (4.4, 4.5 and 8: "default 1"), stream false (4.2, 4.3: "omitted
// gives JSON").
func isDefault(name, text string) bool {
	return name == "n" && text == "1" || name == "stream" && text == "false"
}

// form is what one verified case sends: its model, its parameters' names,
// and the values of those in valued (a default counts as not sent).
type form struct {
	model, feature string
	names          map[string]bool // without those sent with their default (n 1)
	sent           map[string]bool // as sent
	values         map[string]string
	refs           int    // reference images
	maxTokens      string // the max_tokens sent, which tells the bound's cases apart
	prompt         string // what it asks (promptOf), which tells them apart where the bound does not
}

// verifiedForms are the forms of a catalog's verified cases, by endpoint,
// the spec's models of each key kind, the gateway's names for the spec's
// models that a --model-map gives (gateway id → spec id), and the spec,
// whose sentences a note quotes.
type verifiedForms struct {
	byEndpoint map[string][]form
	models     map[string][]string // the spec ids verified on each endpoint, sorted
	// byKey are the spec ids the catalog's cases send with each key kind,
	// of any tier: which model is the alternative one, which a messages
	// one (5.2, 5.3).
	byKey   map[catalog.KeyKind][]string
	aliases map[string]string
	spec    *catalog.Spec
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
	// imageShapes are the image input shapes a verified case tries in
	// turn, per model (4.3 verifies image input, not its shape): the
	// input fails only when every one was refused.
	imageShapes map[string][]string
}

func formsOf(cat *catalog.Catalog, modelMap map[string]string) verifiedForms {
	out := verifiedForms{byEndpoint: map[string][]form{}, models: map[string][]string{}, byKey: map[catalog.KeyKind][]string{},
		aliases: map[string]string{}, spec: cat.Spec, negatives: map[[2]string]string{},
		listed: map[string][]string{}, differs: map[string][]catalog.KeyKind{}, strictListed: map[string][]string{},
		imageShapes: map[string][]string{}}
	for spec, gw := range modelMap {
		out.aliases[gw] = spec
	}
	for i := range cat.Cases {
		cs := &cat.Cases[i]
		for _, model := range cs.Models {
			if !slices.Contains(out.byKey[cs.Key], model) {
				out.byKey[cs.Key] = append(out.byKey[cs.Key], model)
			}
		}
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
			if shape := imageShape(v.JSON); shape != "" && cs.Request.Path == endpointMessages {
				for _, model := range cs.Models {
					out.imageShapes[model] = append(out.imageShapes[model], shape)
				}
			}
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
			sent := maps.Clone(names)
			for _, p := range valued {
				if values[p] = r.ParamText(p); isDefault(p, values[p]) {
					values[p] = ""
					delete(names, p)
				}
			}
			for _, model := range cs.Models {
				out.byEndpoint[r.Path] = append(out.byEndpoint[r.Path], form{model: model, feature: cs.Feature, names: names, sent: sent, values: values, refs: refs,
					maxTokens: r.ParamText("max_tokens"), prompt: promptOf(body)})
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
	if q.Endpoint == endpointMessages && q.carriesImage() {
		return "messages.image_input" // its content's shape tells it, not its members
	}
	// The names as sent first (a case may send a default, n 1), then
	// without the defaults.
	return cmp.Or(v.featureBy(q, q.sentNames(), true), v.featureBy(q, q.names(), false))
}

// featureBy is the feature of the verified form that sends names with
// the values q sends, to q's model: the one that also sends the same
// prompt, then the same max_tokens, first (the cases of the bound, 256 and
// 1024, send the members of the basic ones, and only their prompts tell
// them apart).
func (v verifiedForms) featureBy(q *Request, names map[string]bool, asSent bool) string {
	spec, prompt, refs, maxTokens := v.specOnEndpoint(q), promptOf(q.Body), q.references(), q.text("max_tokens")
	given := map[string]string{}
	for _, p := range valued {
		given[p] = q.given(p)
	}
	var samePrompt, sameBound, first string
	for _, f := range v.byEndpoint[q.Endpoint] {
		fnames := f.names
		if asSent {
			fnames = f.sent
		}
		if f.model != spec && spec != "" || f.refs != refs || len(fnames) != len(names) || !within(names, fnames) {
			continue
		}
		if slices.ContainsFunc(valued, func(p string) bool { return f.values[p] != given[p] }) {
			continue
		}
		if f.maxTokens == maxTokens {
			if f.prompt != "" && f.prompt == prompt {
				samePrompt = cmp.Or(samePrompt, f.feature)
			}
			sameBound = cmp.Or(sameBound, f.feature)
		}
		first = cmp.Or(first, f.feature)
	}
	return cmp.Or(samePrompt, sameBound, first)
}

// promptOf is what a JSON body asks: its prompt, or its first message's
// text ("" for none).
func promptOf(body any) string {
	m, _ := body.(map[string]any)
	if p, ok := m["prompt"].(string); ok {
		return p
	}
	msgs, _ := m["messages"].([]any)
	if len(msgs) == 0 {
		return ""
	}
	first, _ := msgs[0].(map[string]any)
	text, _ := first["content"].(string)
	return text
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
	if q.Model() == "" {
		return ""
	}
	return cmp.Or(v.specOnEndpoint(q), q.Model())
}

// specOnEndpoint is the spec id of the model a request names among the
// models verified on its endpoint ("" for none, or no model), resolved
// once per request.
func (v verifiedForms) specOnEndpoint(q *Request) string {
	if q.spec == nil {
		spec := ""
		if model := q.Model(); model != "" {
			spec = v.specModel(model, v.models[q.Endpoint])
		}
		q.spec = &spec
	}
	return *q.spec
}

// modelRows are the rows naming the models verified on each endpoint.
var modelRows = map[string]string{
	endpointChat:        "1/chat-models",
	endpointMessages:    "1/messages-models",
	endpointGenerations: "1/image-models",
	endpointEdits:       "1/image-models",
}

// wholeTable are the models for which an endpoint's parameter table is
// verified as a whole (4.4: "JSON body (verified for gen-image-2)"): a
// request of theirs whose every member and value is a verified row is
// within the rows, whatever it stacks; 4.5 rule 4 speaks of the edits'
// combinations only.
var wholeTable = map[string]string{endpointGenerations: "gen-image-2"}

// notes are what q does beyond the verified rows, each citing the row it
// goes beyond; and what the judge does not judge of a request that is no
// call of an endpoint the spec shows.
func (v verifiedForms) notes(q *Request) []string {
	if note := pathNote(q); note != "" {
		return []string{note}
	}
	forms := v.byEndpoint[q.Endpoint]
	if len(forms) == 0 || (q.Body == nil && !q.Multipart()) {
		return nil
	}
	model := q.Model()
	spec := model
	if model != "" {
		spec = v.specOnEndpoint(q)
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
	out := slices.Concat(emptyNotes(q), v.onlyFor25(q, spec), valueNotes(q, mine, spec), messageNotes(q), v.memberNotes(q, mine, spec))
	if len(out) == 0 {
		out = v.combinationNotes(q, mine, spec)
	}
	return out
}

// pathNote is the note on a request to no endpoint whose path the spec
// shows, which the judge does not weigh; "" for any other.
func pathNote(q *Request) string {
	switch {
	case !q.apiCall():
		return fmt.Sprintf("%s %s is no call of the API: every path of the spec starts with /v1; not judged (spec intro/paths-v1)", q.Method, q.Path)
	case q.Endpoint == "":
		return fmt.Sprintf("%s %s is no endpoint of the spec: 4.1 to 4.5 show theirs, and the Responses interface's path is not shown; not judged (spec 4.6/responses)", q.Method, q.Path)
	case q.Endpoint == endpointResponses:
		return fmt.Sprintf("%s %s: the Responses interface's path, payload and response are not shown; not judged (spec 4.6/responses)", q.Method, q.Path)
	}
	return ""
}

// memberNotes are the notes on the members no verified row of the model
// sends (memberNote), but those another note speaks of.
func (v verifiedForms) memberNotes(q *Request, mine []form, spec string) []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(q.names())) {
		switch {
		case jsonInForm(q, n):
		case n == "mask" && len(v.onlyFor25(q, spec)) > 0:
			continue // rule 5's
		case slices.Contains(valued, n) && listedRow(q.Endpoint, n) != "":
			continue // its value is valueNotes'
		case slices.ContainsFunc(mine, func(f form) bool { return f.names[n] }):
			continue
		}
		out = append(out, v.memberNote(q, n, spec))
	}
	return out
}

// combinationNotes: every member and value is one a verified row of the
// model sends, but no row sends them together (4.5 rule 4), except where
// the table is verified whole (wholeTable).
func (v verifiedForms) combinationNotes(q *Request, mine []form, spec string) []string {
	names, refs := q.names(), q.references()
	if wholeTable[q.Endpoint] == spec || slices.ContainsFunc(mine, func(f form) bool { return within(names, f.names) && refs <= f.refs }) {
		return nil
	}
	return []string{fmt.Sprintf("no verified row sends %s together%s%s (spec %s)",
		strings.Join(slices.Sorted(maps.Keys(names)), ", "), refsSaid(refs), forModel(spec), v.quote(beyondRow(q.Endpoint)))}
}

// onlyFor25 is 4.5 rule 5 for an edit of gen-image-2: several reference
// images, or a mask, verified for the 2.5 models only.
func (v verifiedForms) onlyFor25(q *Request, spec string) []string {
	if q.Endpoint != endpointEdits || spec != "gen-image-2" {
		return nil
	}
	var out []string
	if n := q.references(); n > 1 {
		out = append(out, fmt.Sprintf("%d reference images for gen-image-2 (spec %s)", n, v.quote("4.5/rule-5")))
	}
	if q.Body["mask"] != nil || len(q.files("mask")) > 0 {
		out = append(out, fmt.Sprintf("a mask for gen-image-2 (spec %s)", v.quote("4.5/rule-5")))
	}
	return out
}

// memberNote is the note on a member no verified row of the model sends:
// one of the endpoint's table, with no verified value; a member of the
// JSON encoding sent as a form field; or one beyond the table.
func (v verifiedForms) memberNote(q *Request, name, spec string) string {
	switch {
	case jsonInForm(q, name):
		return fmt.Sprintf("%s as a multipart text field: a member of the JSON encoding; the form carries its images as files (image, image[], mask) (spec 4.5/rule-3)", name)
	case listedRow(q.Endpoint, name) != "":
		row := listedRow(q.Endpoint, name)
		section, _, _ := strings.Cut(row, "/")
		sent := name
		switch x, _ := q.param(name); x.(type) {
		case string, float64, bool:
			sent += " " + shortValue(q.text(name)) // a scalar is shown; an object or array is an image or a list
		}
		return fmt.Sprintf("%s is listed in %s, no verified value (spec %s)", sent, section, row)
	}
	section, _, _ := strings.Cut(listedRow(q.Endpoint, "model"), "/")
	return fmt.Sprintf("%s is no parameter of %s's table%s (spec %s)", name, section, forModel(spec), v.quote(beyondRow(q.Endpoint)))
}

// jsonInForm says a multipart form carries, as a text field, a member the
// spec gives the JSON encoding alone (4.5: images, and mask as an object).
func jsonInForm(q *Request, name string) bool {
	if !q.Multipart() || q.Endpoint != endpointEdits || (name != "images" && name != "mask") {
		return false
	}
	_, text := q.param(name)
	return text
}

// valueNotes: each valued parameter whose value no verified form of the
// model sends (with the value of its pair, if it has one), citing the row
// that says what was verified.
func valueNotes(q *Request, forms []form, spec string) []string {
	var out []string
	for _, p := range valued {
		got := q.given(p)
		if got == "" {
			continue
		}
		if p == "output_compression" && q.given("output_format") == "png" {
			out = append(out, fmt.Sprintf("output_compression %s with png: the spec omits output_compression for png (spec 4.5/compression-png-omitted)", got))
			continue
		}
		pair, with := paired[p], ""
		matches := func(f form) bool { return pair == "" || f.values[pair] == q.given(pair) }
		if pair != "" {
			with = fmt.Sprintf(" with %s %s", pair, cmp.Or(q.given(pair), "omitted"))
		}
		if slices.ContainsFunc(forms, func(f form) bool { return f.values[p] == got && matches(f) }) {
			continue
		}
		if listedRow(q.Endpoint, p) == "" {
			continue // beyond the table: memberNote's
		}
		var seen []string
		if isDefault(p, "1") {
			seen = append(seen, "1") // the default, as verified as leaving it out
		}
		for _, f := range forms {
			if s := f.values[p]; s != "" && matches(f) && !slices.Contains(seen, s) {
				seen = append(seen, s)
			}
		}
		slices.Sort(seen)
		verified := "none"
		if len(seen) > 0 {
			verified = strings.Join(seen, ", ")
		}
		out = append(out, fmt.Sprintf("%s %s is not verified%s%s (verified: %s; spec %s)", p, got, forModel(spec), with, verified, valueRow(q, p, spec)))
	}
	return out
}

// valueRow is the row that says which values of p were verified for the
// model: 4.5 gives gen-image-2 rows of its own, and a value that goes with
// an output format the row of that format.
func valueRow(q *Request, p, spec string) string {
	if q.Endpoint == endpointEdits {
		switch p {
		case "size", "quality":
			if spec == "gen-image-2" {
				return "4.5/" + p + "-gen-image-2"
			}
		case "background":
			if v := q.given(p); v == "opaque" || v == "auto" {
				return "4.5/background-" + v
			}
		case "output_compression":
			if f := q.given("output_format"); f == "jpeg" || f == "webp" {
				return "4.5/compression-" + f
			}
			return "8/compression"
		}
	}
	return listedRow(q.Endpoint, p)
}

// emptyNotes: a string member sent empty is sent (the rules hold), but no
// verified row sends one, and a gateway may read it as missing (an
// official client that cannot leave a field out sends "").
func emptyNotes(q *Request) []string {
	var out []string
	for _, m := range memberTypes {
		if m.endpoint != q.Endpoint || m.typ != "string" {
			continue
		}
		if v, ok := q.param(m.member); ok && v == "" {
			row := m.row
			if m.member == "size" {
				row = sizeOmittedRows[m.endpoint]
			}
			out = append(out, fmt.Sprintf("%s is empty: no verified row sends an empty %[1]s, and a gateway may answer it as one without it (spec %s)", m.member, row))
		}
	}
	return out
}

// messageNotes: 4.2 verifies one user message, other roles not shown;
// 4.3 shows image input for the alternative model only, and not the
// exact shape of its content array.
func messageNotes(q *Request) []string {
	if q.Endpoint != endpointChat && q.Endpoint != endpointMessages {
		return nil
	}
	var out []string
	for _, m := range q.jsonList("messages") {
		if r, _ := m["role"].(string); r != "" && r != "user" && q.Endpoint == endpointChat {
			out = append(out, fmt.Sprintf("a message of role %s: roles other than user are not shown (spec 4.2/other-roles)", r))
			break
		}
	}
	switch {
	case q.Endpoint != endpointMessages || !q.carriesImage():
	case q.alternative():
		out = append(out, "an image in the content: the exact shape of a content array for image input is not shown (spec 4.3/image-shape)")
	default:
		out = append(out, "an image in the content: the spec shows image input for the alternative text model only (spec 4.3/alt-image-input)")
	}
	return out
}

// names are the parameters q sends, but those sent with their default.
func (q *Request) names() map[string]bool {
	out := q.sentNames()
	for k := range out {
		if isDefault(k, q.text(k)) {
			delete(out, k)
		}
	}
	return out
}

// sentNames are the parameters q sends, those sent with their default
// value (n 1) among them: a case may send one, and it is filed by them.
func (q *Request) sentNames() map[string]bool {
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

// beyondRow is the row saying that what goes beyond an endpoint's
// verified rows is not guaranteed: 4.4's further parameters, 4.5's rule
// 4, and for the text endpoints section 1 (a listed model may refuse a
// combination).
func beyondRow(endpoint string) string {
	switch endpoint {
	case endpointGenerations:
		return "4.4/further-params"
	case endpointEdits:
		return "4.5/rule-4"
	}
	return "1/listed-may-fail"
}

// quote is a row and its sentence, as a note cites a row whose words it
// does not repeat.
func (v verifiedForms) quote(row string) string {
	if s := v.sentence(row); s != "" {
		return row + ": " + s
	}
	return row
}

// sentence is a row's sentence ("" for a row the spec has not).
func (v verifiedForms) sentence(row string) string {
	if rows := v.spec.RowsOf(catalog.SpecRefs{catalog.SpecRef(row)}); len(rows) > 0 {
		return rows[0].Sentence
	}
	return ""
}

// listedRow is the row of the endpoint's parameter table that lists p;
// "" when the table lists no such parameter.
func listedRow(endpoint, p string) string {
	for _, m := range memberTypes {
		if m.endpoint == endpoint && m.member == p {
			return m.row
		}
	}
	return ""
}
