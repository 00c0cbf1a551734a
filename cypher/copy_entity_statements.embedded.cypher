COPY STATEMENT FROM $rows (from = 'Entity', to = 'Entity')
