package refgateway

// model is one entry of a key's model list.
type model struct {
	ID      string
	OwnedBy string
	Created int64
	Family  string // key kind whose behaviour it has
}

// Built-in model lists per key kind (spec sections 1 and 2.1). The first
// entry of each list is the key's verified model that the model-missing
// fault leaves out.
var builtinModels = map[string][]string{
	KindText:     {"gen-5.5", "gen-5.6-luna", "gen-5.6-sol", "gen-5.6-terra", "gen-6-astra"},
	KindMessages: {"msg-sonnet-5", "msg-opus-5", "msg-haiku-4-5-20251001"},
	KindImage:    {"gen-image-2", "gen-image-2.5-flare", "gen-image-2.5-sunburst"},
	KindAlt:      {"alt-flash", "alt-v4-pro"},
}

var ownerOf = map[string]string{KindText: "gen", KindMessages: "msg", KindImage: "gen", KindAlt: "alt"}

// modelsCreated is a fixed creation time so that listings are reproducible.
const modelsCreated = 1767225600 // 2026-01-01T00:00:00Z

// models answers GET /v1/models (4.1) with the model list of 2.1: the
// models visible to the calling key, which differ per key (2.1, 5 rule 2).
func (c *call) models() {
	c.accept()
	list := c.g.lists[c.kind]
	data := make([]any, 0, len(list))
	for _, m := range list {
		data = append(data, map[string]any{"id": m.ID, "object": "model", "owned_by": m.OwnedBy, "created": m.Created})
	}
	c.reply(map[string]any{"object": "list", "data": data})
}

// lookupModel finds id in the caller's model list.
// A model a fault leaves unserved is not found.
func (c *call) lookupModel(id string) (model, bool) {
	if c.unserved(id) {
		return model{}, false
	}
	return c.g.lookupModel(c.kind, id)
}

// lookupModel finds id in the model list of key kind kind.
func (g *Gateway) lookupModel(kind, id string) (model, bool) {
	for _, m := range g.lists[kind] {
		if m.ID == id {
			return m, true
		}
	}
	return model{}, false
}

// unknownModel is the error answering a model outside the caller's list, or
// of another family than the endpoint serves: a retired or unknown model id
// returns 404 (9; section 7 states it for messages). It is nil when a fault
// lets the request through: the caller then serves its default model.
func (c *call) unknownModel(id string) error {
	r := ruleKnownOtherModel
	if c.ep == epMessages {
		r = ruleKnownModel
	}
	return c.violation(r, "model", "model %q does not exist or is not available to this key", id)
}
