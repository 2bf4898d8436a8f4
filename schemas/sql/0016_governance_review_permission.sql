-- The editor role votes on governance review boards (governance:review,
-- after governance:write in its permissions) from 0015 on. The built-in
-- editor roles stored before get it in place, so that an organization
-- created earlier has the role a new one gets (permissions are JSON arrays
-- of "resource:action" strings).
UPDATE roles SET permissions = REPLACE(permissions, '"governance:write"', '"governance:write","governance:review"')
WHERE built_in = TRUE AND name = 'editor' AND permissions NOT LIKE '%"governance:review"%';
