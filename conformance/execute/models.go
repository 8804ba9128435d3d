package execute

import (
	"context"
	"fmt"
	"sort"

	"github.com/gwconform/gwconform/conformance/catalog"
	"github.com/gwconform/gwconform/conformance/plan"
)

// ListModels asks GET /v1/models with one key and returns the ids (spec
// 4.1). The answer, body included, must come within o's bound: the lists
// after the cases have no case timeout to end them.
func ListModels(ctx context.Context, t plan.Target, kind catalog.KeyKind, o ListOptions) ([]string, error) {
	status, body, err := getModelList(ctx, t, kind, o)
	if err != nil {
		return nil, err
	}
	if status/100 != 2 { // the spec shows success, not its code (2.2: "200-class")
		return nil, fmt.Errorf("GET /v1/models with the %s key: HTTP %d", kind, status)
	}
	ids, err := modelIDs(body)
	if err != nil {
		return nil, fmt.Errorf("GET /v1/models with the %s key: %w", kind, err)
	}
	return ids, nil
}

// FindNewModels lists every configured key's models and returns those the
// catalog does not name under any name (plan.ModelNames.Covers: a spec
// id, the gateway's id for one, a spelling of one), in key then id order.
// Each list is bounded as ListModels bounds it, so a gateway that stalls
// its list ends the listing with an error, not a hang.
func FindNewModels(ctx context.Context, cat *catalog.Catalog, t plan.Target, o ListOptions) ([]plan.NewModel, error) {
	if !modelsOffered(cat, t) {
		return nil, nil // the gateway declared it lists nothing: nothing is sent
	}
	var out []plan.NewModel
	for _, kind := range catalog.KeyKinds {
		if _, unread := t.Names.Unread(kind); t.Keys[kind] == "" || unread {
			continue // an unread list was said once, by the preflight
		}
		ids, err := ListModels(ctx, t, kind, o)
		if err != nil {
			return nil, err
		}
		sort.Strings(ids)
		for _, id := range ids {
			if !t.Names.Covers(cat, id) {
				out = append(out, plan.NewModel{ID: id, Key: kind})
			}
		}
	}
	return out, nil
}
