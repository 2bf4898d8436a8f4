package web

import (
	"strconv"

	"github.com/gofiber/fiber/v2"
)

// Page is the specification's pagination envelope; the items travel under a
// resource-named key beside these fields.
type Page struct {
	Total      int64 `json:"total"`
	Page       int   `json:"page"`
	PageSize   int   `json:"page_size"`
	TotalPages int   `json:"total_pages"`
	HasNext    bool  `json:"has_next"`
	HasPrev    bool  `json:"has_prev"`
	NextPage   *int  `json:"next_page"`
	PrevPage   *int  `json:"prev_page"`
}

// NewPage describes page (1-based) of size pageSize out of total items.
func NewPage(total int64, page, pageSize int) Page {
	p := Page{Total: total, Page: page, PageSize: pageSize}
	if pageSize > 0 {
		p.TotalPages = int((total + int64(pageSize) - 1) / int64(pageSize))
	}
	p.HasNext = page < p.TotalPages
	p.HasPrev = page > 1
	if p.HasNext {
		n := page + 1
		p.NextPage = &n
	}
	if p.HasPrev {
		n := page - 1
		p.PrevPage = &n
	}
	return p
}

// IntQuery reads the integer query parameter name, def when absent, and
// answers 422 naming it when it is not an integer within [min, max] (sent
// empty included).
func IntQuery(c *fiber.Ctx, name string, def, min, max int) (int, error) {
	s := Query(c, name)
	if s == nil {
		return def, nil
	}
	n, err := strconv.Atoi(*s)
	if err != nil {
		return 0, Invalid(name, "must be an integer")
	}
	if n < min || n > max {
		return 0, Invalid(name, "must be between "+strconv.Itoa(min)+" and "+strconv.Itoa(max))
	}
	return n, nil
}

// PageQuery reads page-style pagination: page (default 1) and page_size
// (default def, at most max).
func PageQuery(c *fiber.Ctx, def, max int) (page, size int, err error) {
	if page, err = IntQuery(c, "page", 1, 1, 1<<30); err != nil {
		return 0, 0, err
	}
	size, err = IntQuery(c, "page_size", def, 1, max)
	return page, size, err
}
