-- The permission resource "trust" (trust:read, trust:write,
-- trust:configure) from 0011 on. The built-in roles stored before grant it
-- as the built-in roles of a new organization do: viewers read, editors
-- read and write (admins hold *:*). Permissions are JSON arrays of
-- "resource:action" strings, in the order of identity.Resources.
UPDATE roles SET permissions = REPLACE(permissions, '"risk:read"', '"risk:read","trust:read"')
    WHERE built_in AND name = 'viewer' AND permissions NOT LIKE '%"trust:%';
UPDATE roles SET permissions = REPLACE(permissions, '"risk:write"', '"risk:write","trust:read","trust:write"')
    WHERE built_in AND name = 'editor' AND permissions NOT LIKE '%"trust:%';
