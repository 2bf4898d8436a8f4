package web

import (
	"context"
	"encoding/json"

	"github.com/gofiber/fiber/v2"
)

// SendPage answers one page of a list in the pagination envelope, the
// records' views under key (e.g. "exports"): page and page_size come from
// the query (50 by default, 1000 at most, 422 otherwise), read reads at
// most limit records from offset with the total, view shows each record.
// A read that fails (a path id of no one's: 404) answers its error.
func SendPage[R, V any](c *fiber.Ctx, key string, read func(ctx context.Context, offset, limit int) ([]R, int64, error), view func(R) V) error {
	page, size, err := PageQuery(c, 50, 1000)
	if err != nil {
		return err
	}
	rs, total, err := read(c.UserContext(), (page-1)*size, size)
	if err != nil {
		return err
	}
	items := make([]V, 0, len(rs))
	for _, r := range rs {
		items = append(items, view(r))
	}
	return c.JSON(keyedPage[V]{page: NewPage(total, page, size), key: key, items: items})
}

// keyedPage is a Page with its items under key, encoded as the envelope's
// members then the key's, as a struct embedding Page would be.
type keyedPage[V any] struct {
	page  Page
	key   string
	items []V
}

// MarshalJSON writes {<the page's members>,"<key>":[<items>]}.
func (p keyedPage[V]) MarshalJSON() ([]byte, error) {
	out, err := json.Marshal(p.page)
	if err != nil {
		return nil, err
	}
	key, err := json.Marshal(p.key)
	if err != nil {
		return nil, err
	}
	items, err := json.Marshal(p.items)
	if err != nil {
		return nil, err
	}
	out = append(append(out[:len(out)-1], ','), key...)
	out = append(append(append(out, ':'), items...), '}')
	return out, nil
}
