-- The permission resource "risks" is named "risk" from 0009 on (risk:read,
-- risk:write, risk:configure). Roles and API keys stored before keep what
-- they granted: their "risks:..." entries are renamed in place (permissions
-- and scopes are JSON arrays of "resource:action" strings).
UPDATE roles SET permissions = REPLACE(permissions, '"risks:', '"risk:') WHERE permissions LIKE '%"risks:%';
UPDATE api_keys SET scopes = REPLACE(scopes, '"risks:', '"risk:') WHERE scopes LIKE '%"risks:%';
