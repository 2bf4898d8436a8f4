package tabulartest

import (
	"encoding/json"
	"fmt"

	"github.com/vigilhq/vigil/eventlog"
)

// Same returns an error naming the first difference between got and want,
// in order, leaving out the organization, which no format writes.
func Same(got, want []eventlog.Prediction) error {
	if len(got) != len(want) {
		return fmt.Errorf("got %d predictions, want %d", len(got), len(want))
	}
	for i := range got {
		g, w := got[i], want[i]
		g.OrgID, w.OrgID = "", ""
		gj, err := json.Marshal(g)
		if err != nil {
			return err
		}
		wj, err := json.Marshal(w)
		if err != nil {
			return err
		}
		if string(gj) != string(wj) {
			return fmt.Errorf("prediction %d: got %s, want %s", i, gj, wj)
		}
	}
	return nil
}
