LOAD FROM $rows
MATCH (e:Entity {id: id})
SET e.kb = kb, e.name = name, e.name_lc = name_lc, e.aliases = aliases, e.aliases_text = aliases_text,
    e.description = description, e.types = types, e.cvt = cvt
